//! The parser of Go's text/template: the same trees, positions and error texts.

use std::collections::HashMap;
use std::sync::Arc;

use crate::error::Error;
use crate::exec::{STACK_RED_ZONE, STACK_SEGMENT};
use crate::lex::{Item, Items, Tok};

/// One parsed template (Go's `*parse.Tree`).
#[derive(Debug)]
pub(crate) struct Tree {
    pub name: String,
    /// The name of the text it was parsed from, for error locations.
    pub parse_name: Arc<str>,
    pub text: Arc<str>,
    pub root: List,
    /// The bytes of text in the tree, branches included: what an execution writes at least
    /// when its branches are taken, so that its output is allocated once rather than grown.
    pub text_size: usize,
}

#[derive(Debug, Default)]
pub(crate) struct List {
    pub nodes: Vec<Node>,
}

/// Text of a template: a part of the text it was parsed from, shared rather than copied
/// (templates are mostly text; a chart's CRDs are megabytes of it).
#[derive(Debug, Clone)]
pub(crate) struct TextSpan {
    source: Arc<str>,
    start: usize,
    end: usize,
}

impl std::ops::Deref for TextSpan {
    type Target = str;

    fn deref(&self) -> &str {
        &self.source[self.start..self.end]
    }
}

/// Texts and actions, most of a tree's nodes, are held inline; the rarer branches and template
/// calls are boxed, so that they do not make every node as large as themselves (120 bytes a
/// node before, 72 now).
#[derive(Debug)]
pub(crate) enum Node {
    Text(TextSpan),
    Action {
        pos: usize,
        pipe: Pipe,
    },
    If(Box<Branch>),
    Range(Box<Branch>),
    With(Box<Branch>),
    Template {
        pos: usize,
        name: String,
        pipe: Option<Box<Pipe>>,
    },
    Break,
    Continue,
}

#[derive(Debug)]
pub(crate) struct Branch {
    pub pipe: Pipe,
    pub list: List,
    pub else_list: Option<List>,
}

#[derive(Debug)]
pub(crate) struct Pipe {
    pub pos: usize,
    pub is_assign: bool,
    pub decl: Vec<Var>,
    pub cmds: Vec<Command>,
}

#[derive(Debug)]
pub(crate) struct Var {
    pub name: String,
}

#[derive(Debug)]
pub(crate) struct Command {
    pub pos: usize,
    pub args: Vec<Arg>,
}

#[derive(Debug)]
pub(crate) enum Arg {
    Field {
        pos: usize,
        idents: Vec<String>,
    },
    /// `$x.A.B`: idents[0] is the variable.
    Variable {
        pos: usize,
        idents: Vec<String>,
    },
    Chain {
        pos: usize,
        node: Box<Arg>,
        fields: Vec<String>,
    },
    Identifier {
        pos: usize,
        name: String,
    },
    Dot {
        pos: usize,
    },
    Nil {
        pos: usize,
    },
    Bool {
        pos: usize,
        val: bool,
    },
    Number {
        pos: usize,
        num: Number,
    },
    String {
        pos: usize,
        quoted: String,
        text: String,
    },
    Pipe(Box<Pipe>),
}

/// A number literal as Go's parser classifies it.
#[derive(Debug, Clone)]
pub(crate) struct Number {
    pub text: String,
    pub int: Option<i64>,
    pub is_uint: bool,
    pub float: Option<f64>,
    pub complex: bool,
}

impl Arg {
    pub fn pos(&self) -> usize {
        match self {
            Arg::Field { pos, .. }
            | Arg::Variable { pos, .. }
            | Arg::Chain { pos, .. }
            | Arg::Identifier { pos, .. }
            | Arg::Dot { pos }
            | Arg::Nil { pos }
            | Arg::Bool { pos, .. }
            | Arg::Number { pos, .. }
            | Arg::String { pos, .. } => *pos,
            Arg::Pipe(p) => p.pos,
        }
    }

    fn write(&self, out: &mut String) {
        match self {
            Arg::Field { idents, .. } => {
                for id in idents {
                    out.push('.');
                    out.push_str(id);
                }
            }
            Arg::Variable { idents, .. } => out.push_str(&idents.join(".")),
            Arg::Chain { node, fields, .. } => {
                if let Arg::Pipe(p) = node.as_ref() {
                    out.push('(');
                    p.write(out);
                    out.push(')');
                } else {
                    node.write(out);
                }
                for f in fields {
                    out.push('.');
                    out.push_str(f);
                }
            }
            Arg::Identifier { name, .. } => out.push_str(name),
            Arg::Dot { .. } => out.push('.'),
            Arg::Nil { .. } => out.push_str("nil"),
            Arg::Bool { val, .. } => out.push_str(if *val { "true" } else { "false" }),
            Arg::Number { num, .. } => out.push_str(&num.text),
            Arg::String { quoted, .. } => out.push_str(quoted),
            Arg::Pipe(p) => p.write(out),
        }
    }

    /// Go's `Node.String()`.
    pub fn describe(&self) -> String {
        let mut s = String::new();
        self.write(&mut s);
        s
    }
}

impl Pipe {
    /// The node Go's executor was last "at" after evaluating this pipeline without error:
    /// error messages about its value (range, if) name it.
    pub fn last_node(&self) -> (usize, String) {
        let Some(cmd) = self.cmds.last() else {
            return (self.pos, String::new());
        };
        let first = &cmd.args[0];
        match first {
            Arg::Identifier { .. } if cmd.args.len() > 1 => {
                let last = &cmd.args[cmd.args.len() - 1];
                match last {
                    Arg::Pipe(p) => p.last_node(),
                    a => (a.pos(), a.describe()),
                }
            }
            Arg::Pipe(p) => p.last_node(),
            a => (a.pos(), a.describe()),
        }
    }
}

impl Command {
    fn write(&self, out: &mut String) {
        for (i, a) in self.args.iter().enumerate() {
            if i > 0 {
                out.push(' ');
            }
            if let Arg::Pipe(p) = a {
                out.push('(');
                p.write(out);
                out.push(')');
            } else {
                a.write(out);
            }
        }
    }

    pub fn describe(&self) -> String {
        let mut s = String::new();
        self.write(&mut s);
        s
    }
}

impl Pipe {
    fn write(&self, out: &mut String) {
        if !self.decl.is_empty() {
            for (i, v) in self.decl.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&v.name);
            }
            out.push_str(if self.is_assign { " = " } else { " := " });
        }
        for (i, c) in self.cmds.iter().enumerate() {
            if i > 0 {
                out.push_str(" | ");
            }
            c.write(out);
        }
    }
}

impl List {
    fn write(&self, out: &mut String) {
        for n in &self.nodes {
            n.write(out);
        }
    }
}

impl Node {
    fn write(&self, out: &mut String) {
        match self {
            Node::Text(t) => out.push_str(t),
            Node::Action { pipe, .. } => {
                out.push_str("{{");
                pipe.write(out);
                out.push_str("}}");
            }
            Node::If(b) => b.write("if", out),
            Node::Range(b) => b.write("range", out),
            Node::With(b) => b.write("with", out),
            Node::Template { name, pipe, .. } => {
                out.push_str("{{template ");
                out.push_str(&crate::gofmt::quote(name));
                if let Some(p) = pipe {
                    out.push(' ');
                    p.write(out);
                }
                out.push_str("}}");
            }
            Node::Break => out.push_str("{{break}}"),
            Node::Continue => out.push_str("{{continue}}"),
        }
    }

    pub fn describe(&self) -> String {
        let mut s = String::new();
        self.write(&mut s);
        s
    }
}

impl Branch {
    fn write(&self, name: &str, out: &mut String) {
        out.push_str("{{");
        out.push_str(name);
        out.push(' ');
        self.pipe.write(out);
        out.push_str("}}");
        self.list.write(out);
        if let Some(e) = &self.else_list {
            out.push_str("{{else}}");
            e.write(out);
        }
        out.push_str("{{end}}");
    }
}

/// Parses `text` named `name`: returns the trees it defines, the top-level one (named `name`)
/// first. `has_func` says whether a function name is defined (Go checks at parse time).
pub(crate) fn parse(
    name: &str,
    text: Arc<str>,
    has_func: &dyn Fn(&str) -> bool,
) -> Result<Vec<Tree>, Error> {
    // The text is kept once, shared by the trees (for error locations) and their text nodes.
    let items = Items::new(&text, !has_func("break"), !has_func("continue"));
    let mut p = Parser {
        items,
        last: None,
        token: Vec::new(),
        last_line_pos: 0,
        vars: vec!["$".to_string()],
        range_depth: 0,
        expr_depth: 0,
        block_depth: 0,
        has_func,
        parse_name: Arc::from(name),
        text: text.clone(),
        trees: Vec::new(),
        tree_names: HashMap::new(),
        name: name.to_string(),
    };
    let root = p.parse_top()?;
    p.add_tree(name.to_string(), root)?;
    // The top-level tree first; defined ones after.
    let mut trees = p.trees;
    if let Some(i) = trees.iter().position(|t| t.name == name) {
        let top = trees.remove(i);
        trees.insert(0, top);
    }
    Ok(trees)
}

struct Parser<'a> {
    items: Items<'a>,
    /// The item that ended the text (`Eof` or `Error`), read again past the end.
    last: Option<Item<'a>>,
    /// Pushed-back tokens, the last one is read first.
    token: Vec<Item<'a>>,
    /// A position on the line of the last token read, for error messages.
    last_line_pos: usize,
    vars: Vec<String>,
    range_depth: usize,
    /// Nested parenthesized pipelines being parsed.
    expr_depth: usize,
    /// Nested block bodies being parsed.
    block_depth: usize,
    has_func: &'a dyn Fn(&str) -> bool,
    parse_name: Arc<str>,
    text: Arc<str>,
    trees: Vec<Tree>,
    tree_names: HashMap<String, usize>,
    /// The name of the tree being parsed, for error messages.
    name: String,
}

type PResult<T> = Result<T, Error>;

/// Go's `maxStackDepth`: parenthesized pipelines nest at most this deep.
pub(crate) const MAX_EXPRESSION_DEPTH: usize = 10_000;
/// Blocks (`if`, `range`, `with`, `block`, `define`, `else if`) nest at most this deep.
pub(crate) const MAX_BLOCK_DEPTH: usize = 10_000;

/// The 1-based line of byte `pos` of `text`.
fn line_of(text: &str, pos: usize) -> usize {
    1 + memchr::memchr_iter(b'\n', &text.as_bytes()[..pos.min(text.len())]).count()
}

/// The dot-separated names of a field or variable chain, in a list of exactly their number (a
/// collected list reserves room for four).
fn chain_parts(chain: &str) -> Vec<String> {
    let mut parts = Vec::with_capacity(1 + memchr::memchr_iter(b'.', chain.as_bytes()).count());
    parts.extend(chain.split('.').map(str::to_string));
    parts
}

/// The bytes of text nodes in `list` and the lists nested in it (without recursion: lists nest
/// as deep as [`MAX_BLOCK_DEPTH`]).
fn text_size(list: &List) -> usize {
    let mut size = 0;
    let mut pending = vec![list];
    while let Some(list) = pending.pop() {
        for node in &list.nodes {
            match node {
                Node::Text(t) => size += t.len(),
                Node::If(b) | Node::Range(b) | Node::With(b) => {
                    pending.push(&b.list);
                    pending.extend(&b.else_list);
                }
                _ => {}
            }
        }
    }
    size
}

/// Go's `IsEmptyTree`.
fn is_empty_list(l: &List) -> bool {
    l.nodes.iter().all(|n| match n {
        Node::Text(t) => t
            .trim_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c'])
            .is_empty(),
        _ => false,
    })
}

impl<'a> Parser<'a> {
    fn next(&mut self) -> Item<'a> {
        if let Some(t) = self.token.pop() {
            return t;
        }
        let item = match self.items.next() {
            Some(i) => {
                if matches!(i.tok, Tok::Eof | Tok::Error) {
                    self.last = Some(i);
                }
                i
            }
            None => self.last.unwrap_or(Item {
                tok: Tok::Eof,
                pos: self.text.len(),
                val: "",
                line_pos: self.last_line_pos,
            }),
        };
        self.last_line_pos = item.line_pos;
        item
    }

    fn backup(&mut self, item: Item<'a>) {
        self.token.push(item);
    }

    fn peek(&mut self) -> Item<'a> {
        let t = self.next();
        self.backup(t);
        t
    }

    fn next_non_space(&mut self) -> Item<'a> {
        loop {
            let t = self.next();
            if t.tok != Tok::Space {
                return t;
            }
        }
    }

    fn peek_non_space(&mut self) -> Item<'a> {
        let t = self.next_non_space();
        self.backup(t);
        t
    }

    /// `item` as Go prints it in a message: an `Error` item is the lexer's message.
    fn shown(&self, item: &Item<'_>) -> String {
        if item.tok == Tok::Error {
            return self.items.error_message().to_string();
        }
        item.to_string()
    }

    fn errorf(&self, msg: String) -> Error {
        Error::parse(format!(
            "template: {}:{}: {}",
            self.parse_name,
            line_of(&self.text, self.last_line_pos),
            msg
        ))
    }

    fn unexpected(&self, item: &Item<'_>, context: &str) -> Error {
        if item.tok == Tok::Error {
            return self.errorf(self.shown(item));
        }
        self.errorf(format!("unexpected {item} in {context}"))
    }

    fn expect(&mut self, tok: Tok, context: &str) -> PResult<Item<'a>> {
        let t = self.next_non_space();
        if t.tok != tok {
            return Err(self.unexpected(&t, context));
        }
        Ok(t)
    }

    fn add_tree(&mut self, name: String, root: List) -> PResult<()> {
        let tree = Tree {
            name,
            parse_name: self.parse_name.clone(),
            text: self.text.clone(),
            text_size: text_size(&root),
            root,
        };
        if let Some(&i) = self.tree_names.get(&tree.name) {
            if is_empty_list(&self.trees[i].root) {
                self.trees[i] = tree;
                return Ok(());
            }
            if !is_empty_list(&tree.root) {
                return Err(self.errorf(format!(
                    "template: multiple definition of template {}",
                    crate::gofmt::quote(&tree.name)
                )));
            }
            return Ok(());
        }
        self.tree_names.insert(tree.name.clone(), self.trees.len());
        self.trees.push(tree);
        Ok(())
    }

    fn parse_top(&mut self) -> PResult<List> {
        let mut root = List::default();
        while self.peek().tok != Tok::Eof {
            if self.peek().tok == Tok::LeftDelim {
                let delim = self.next();
                let after = self.next_non_space();
                if after.tok == Tok::Define {
                    self.parse_definition()?;
                    continue;
                }
                self.backup(after);
                self.backup(delim);
            }
            let n = self.text_or_action()?;
            match n {
                Parsed::End | Parsed::Else(_) => {
                    let word = if matches!(n, Parsed::End) {
                        "{{end}}"
                    } else {
                        "{{else}}"
                    };
                    return Err(self.errorf(format!("unexpected {word}")));
                }
                Parsed::Node(node) => root.nodes.push(node),
            }
        }
        Ok(root)
    }

    fn parse_definition(&mut self) -> PResult<()> {
        let context = "define clause";
        let name_item = self.next_non_space();
        if name_item.tok != Tok::String && name_item.tok != Tok::RawString {
            return Err(self.unexpected(&name_item, context));
        }
        let name = self.unquote(name_item.val)?;
        self.expect(Tok::RightDelim, context)?;
        let saved_vars = std::mem::replace(&mut self.vars, vec!["$".to_string()]);
        let saved_name = std::mem::replace(&mut self.name, name.clone());
        let (list, end) = self.item_list()?;
        if !matches!(end, Parsed::End) {
            return Err(self.errorf(format!("unexpected {} in {context}", end.describe())));
        }
        self.vars = saved_vars;
        self.name = saved_name;
        self.add_tree(name, list)
    }

    /// Parses a nested block (`if`, `range`, `with`, `block`, each `else if` of a chain) with
    /// `f`. Go has no bound on their nesting but its growable stack; this parser has
    /// [`MAX_BLOCK_DEPTH`], and its stack grows on the heap rather than overflow before it.
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        if self.block_depth >= MAX_BLOCK_DEPTH {
            return Err(self.errorf(format!(
                "max block depth exceeded: blocks nested more than {MAX_BLOCK_DEPTH} deep"
            )));
        }
        self.block_depth += 1;
        let r = stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || f(self));
        self.block_depth -= 1;
        r
    }

    fn item_list(&mut self) -> PResult<(List, Parsed)> {
        stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || self.item_list_here())
    }

    fn item_list_here(&mut self) -> PResult<(List, Parsed)> {
        let mut list = List::default();
        while self.peek_non_space().tok != Tok::Eof {
            match self.text_or_action()? {
                Parsed::Node(n) => list.nodes.push(n),
                other => {
                    list.nodes.shrink_to_fit();
                    return Ok((list, other));
                }
            }
        }
        let t = self.peek_non_space();
        if t.tok == Tok::Error {
            return Err(self.errorf(self.shown(&t)));
        }
        Err(self.errorf("unexpected EOF".into()))
    }

    fn text_or_action(&mut self) -> PResult<Parsed> {
        let t = self.next_non_space();
        match t.tok {
            Tok::Text => Ok(Parsed::Node(Node::Text(TextSpan {
                source: self.text.clone(),
                start: t.pos,
                end: t.pos + t.val.len(),
            }))),
            Tok::LeftDelim => self.action(),
            _ => Err(self.unexpected(&t, "input")),
        }
    }

    fn action(&mut self) -> PResult<Parsed> {
        let t = self.next_non_space();
        match t.tok {
            Tok::Block => return self.block_control().map(Parsed::Node),
            Tok::Break => return self.break_control("break").map(Parsed::Node),
            Tok::Continue => return self.break_control("continue").map(Parsed::Node),
            Tok::Else => return self.else_control(),
            Tok::End => {
                self.expect(Tok::RightDelim, "end")?;
                return Ok(Parsed::End);
            }
            Tok::If => return self.if_control().map(Parsed::Node),
            Tok::Range => return self.range_control().map(Parsed::Node),
            Tok::Template => return self.template_control().map(Parsed::Node),
            Tok::With => return self.with_control().map(Parsed::Node),
            _ => {}
        }
        self.backup(t);
        let tok = self.peek();
        let pipe = self.pipeline("command", Tok::RightDelim)?;
        Ok(Parsed::Node(Node::Action { pos: tok.pos, pipe }))
    }

    fn break_control(&mut self, word: &str) -> PResult<Node> {
        let t = self.next_non_space();
        if t.tok != Tok::RightDelim {
            return Err(self.unexpected(&t, &format!("{{{{{word}}}}}")));
        }
        if self.range_depth == 0 {
            return Err(self.errorf(format!("{{{{{word}}}}} outside {{{{range}}}}")));
        }
        Ok(if word == "break" {
            Node::Break
        } else {
            Node::Continue
        })
    }

    fn else_control(&mut self) -> PResult<Parsed> {
        let peek = self.peek_non_space();
        if peek.tok == Tok::If {
            return Ok(Parsed::Else(ElseKind::If));
        }
        if peek.tok == Tok::With {
            return Ok(Parsed::Else(ElseKind::With));
        }
        self.expect(Tok::RightDelim, "else")?;
        Ok(Parsed::Else(ElseKind::Plain))
    }

    fn unquote(&self, quoted: &str) -> PResult<String> {
        crate::gofmt::unquote(quoted).ok_or_else(|| self.errorf("invalid syntax".into()))
    }

    fn parse_template_name(&mut self, t: &Item<'_>, context: &str) -> PResult<String> {
        match t.tok {
            Tok::String | Tok::RawString => self.unquote(t.val),
            _ => Err(self.unexpected(t, context)),
        }
    }

    fn block_control(&mut self) -> PResult<Node> {
        let context = "block clause";
        let t = self.next_non_space();
        let name = self.parse_template_name(&t, context)?;
        let pipe = self.pipeline(context, Tok::RightDelim)?;
        let saved_vars = std::mem::replace(&mut self.vars, vec!["$".to_string()]);
        let saved_depth = std::mem::replace(&mut self.range_depth, 0);
        let (list, end) = self.nested(Self::item_list)?;
        if !matches!(end, Parsed::End) {
            return Err(self.errorf(format!("unexpected {} in {context}", end.describe())));
        }
        self.vars = saved_vars;
        self.range_depth = saved_depth;
        self.add_tree(name.clone(), list)?;
        Ok(Node::Template {
            pos: t.pos,
            name,
            pipe: Some(Box::new(pipe)),
        })
    }

    fn template_control(&mut self) -> PResult<Node> {
        let context = "template clause";
        let t = self.next_non_space();
        let name = self.parse_template_name(&t, context)?;
        let next = self.next_non_space();
        let pipe = if next.tok != Tok::RightDelim {
            self.backup(next);
            Some(Box::new(self.pipeline(context, Tok::RightDelim)?))
        } else {
            None
        };
        Ok(Node::Template {
            pos: t.pos,
            name,
            pipe,
        })
    }

    fn if_control(&mut self) -> PResult<Node> {
        self.parse_control("if").map(|b| Node::If(Box::new(b)))
    }

    fn range_control(&mut self) -> PResult<Node> {
        self.range_depth += 1;
        let r = self.parse_control("range");
        self.range_depth -= 1;
        r.map(|b| Node::Range(Box::new(b)))
    }

    fn with_control(&mut self) -> PResult<Node> {
        self.parse_control("with").map(|b| Node::With(Box::new(b)))
    }

    fn parse_control(&mut self, context: &str) -> PResult<Branch> {
        self.nested(|p| p.parse_control_here(context))
    }

    fn parse_control_here(&mut self, context: &str) -> PResult<Branch> {
        let mark = self.vars.len();
        let pipe = self.pipeline(context, Tok::RightDelim)?;
        let (list, next) = self.item_list()?;
        let mut else_list = None;
        match next {
            Parsed::End => {}
            Parsed::Else(kind) => {
                let chained = match (context, &kind) {
                    ("if", ElseKind::If) => Some("if"),
                    ("with", ElseKind::With) => Some("with"),
                    _ => None,
                };
                if let Some(word) = chained {
                    // {{else if x}} is {{else}}{{if x}}...{{end}}{{end}} with one {{end}}.
                    self.next();
                    let node = if word == "if" {
                        self.if_control()?
                    } else {
                        self.with_control()?
                    };
                    else_list = Some(List { nodes: vec![node] });
                } else {
                    let (l, next) = self.item_list()?;
                    if !matches!(next, Parsed::End) {
                        return Err(self.errorf(format!("expected end; found {}", next.describe())));
                    }
                    else_list = Some(l);
                }
            }
            Parsed::Node(_) => {}
        }
        self.vars.truncate(mark);
        Ok(Branch {
            pipe,
            list,
            else_list,
        })
    }

    fn pipeline(&mut self, context: &str, _end: Tok) -> PResult<Pipe> {
        let t = self.peek_non_space();
        let mut pipe = Pipe {
            pos: t.pos,
            is_assign: false,
            decl: Vec::new(),
            cmds: Vec::new(),
        };
        loop {
            let v = self.peek_non_space();
            if v.tok != Tok::Variable {
                break;
            }
            let v = self.next_non_space();
            let after = self.peek();
            let next = self.peek_non_space();
            if next.tok == Tok::Assign || next.tok == Tok::Declare {
                pipe.is_assign = next.tok == Tok::Assign;
                self.next_non_space();
                pipe.decl.push(Var {
                    name: v.val.to_string(),
                });
                self.vars.push(v.val.to_string());
                break;
            } else if next.tok == Tok::Char && next.val == "," {
                self.next_non_space();
                pipe.decl.push(Var {
                    name: v.val.to_string(),
                });
                self.vars.push(v.val.to_string());
                if context == "range" && pipe.decl.len() < 2 {
                    let p = self.peek_non_space();
                    match p.tok {
                        Tok::Variable | Tok::RightDelim | Tok::RightParen => continue,
                        _ => return Err(self.errorf("range can only initialize variables".into())),
                    }
                }
                return Err(self.errorf(format!("too many declarations in {context}")));
            } else if after.tok == Tok::Space {
                // "$x foo": the variable is an argument. Push back the variable and the space.
                let space = self.token_take_space();
                if let Some(s) = space {
                    self.backup(s);
                }
                self.backup(v);
                break;
            } else {
                self.backup(v);
                break;
            }
        }
        loop {
            let t = self.next_non_space();
            match t.tok {
                Tok::RightDelim | Tok::RightParen => {
                    self.check_pipeline(&pipe, context)?;
                    // A list grown by pushes keeps room for four or more, and a chart holds
                    // thousands of pipelines of one or two commands of one to three arguments:
                    // trimming them spares new on redis ~280 of ~3,580 page faults.
                    pipe.cmds.shrink_to_fit();
                    if t.tok == Tok::RightParen {
                        self.backup(t);
                    }
                    return Ok(pipe);
                }
                Tok::Bool
                | Tok::CharConstant
                | Tok::Complex
                | Tok::Dot
                | Tok::Field
                | Tok::Identifier
                | Tok::Number
                | Tok::Nil
                | Tok::RawString
                | Tok::String
                | Tok::Variable
                | Tok::LeftParen => {
                    self.backup(t);
                    let cmd = self.command()?;
                    pipe.cmds.push(cmd);
                }
                _ => return Err(self.unexpected(&t, context)),
            }
        }
    }

    /// After `peek_non_space` past a space, the pushed-back stack holds the non-space token;
    /// rebuild "space, token" so that the variable can be pushed back in front.
    fn token_take_space(&mut self) -> Option<Item<'a>> {
        // The stack is [.., next_non_space]; the space was consumed by peek_non_space.
        // Recreate it so the command parser sees "$x" followed by a space.
        let pos = self.token.last().map(|t| t.pos).unwrap_or(0);
        Some(Item {
            tok: Tok::Space,
            pos,
            val: " ",
            line_pos: self.last_line_pos,
        })
    }

    fn check_pipeline(&self, pipe: &Pipe, context: &str) -> PResult<()> {
        if pipe.cmds.is_empty() {
            return Err(self.errorf(format!("missing value for {context}")));
        }
        for (i, c) in pipe.cmds.iter().enumerate().skip(1) {
            if matches!(
                c.args[0],
                Arg::Bool { .. }
                    | Arg::Dot { .. }
                    | Arg::Nil { .. }
                    | Arg::Number { .. }
                    | Arg::String { .. }
            ) {
                return Err(self.errorf(format!(
                    "non executable command in pipeline stage {}",
                    i + 1
                )));
            }
        }
        Ok(())
    }

    fn command(&mut self) -> PResult<Command> {
        let pos = self.peek_non_space().pos;
        let mut cmd = Command {
            pos,
            args: Vec::new(),
        };
        loop {
            self.peek_non_space();
            if let Some(op) = self.operand()? {
                cmd.args.push(op);
            }
            let t = self.next();
            match t.tok {
                Tok::Space => continue,
                Tok::Error => return Err(self.errorf(self.shown(&t))),
                Tok::RightDelim | Tok::RightParen => self.backup(t),
                Tok::Pipe => {}
                _ => return Err(self.errorf(format!("unexpected {t} in operand"))),
            }
            break;
        }
        if cmd.args.is_empty() {
            return Err(self.errorf("empty command".into()));
        }
        cmd.args.shrink_to_fit();
        Ok(cmd)
    }

    fn operand(&mut self) -> PResult<Option<Arg>> {
        let Some(node) = self.term()? else {
            return Ok(None);
        };
        if self.peek().tok != Tok::Field {
            return Ok(Some(node));
        }
        let chain_pos = self.peek().pos;
        let mut fields = Vec::new();
        while self.peek().tok == Tok::Field {
            let f = self.next();
            fields.push(f.val[1..].to_string());
        }
        Ok(Some(match node {
            Arg::Field { mut idents, .. } => {
                idents.extend(fields);
                Arg::Field {
                    pos: chain_pos,
                    idents,
                }
            }
            Arg::Variable { mut idents, .. } => {
                idents.extend(fields);
                Arg::Variable {
                    pos: chain_pos,
                    idents,
                }
            }
            Arg::Bool { .. }
            | Arg::String { .. }
            | Arg::Number { .. }
            | Arg::Nil { .. }
            | Arg::Dot { .. } => {
                return Err(self.errorf(format!(
                    "unexpected . after term {}",
                    crate::gofmt::quote(&node.describe())
                )));
            }
            other => Arg::Chain {
                pos: chain_pos,
                node: Box::new(other),
                fields,
            },
        }))
    }

    fn term(&mut self) -> PResult<Option<Arg>> {
        let t = self.next_non_space();
        Ok(Some(match t.tok {
            Tok::Error => return Err(self.errorf(self.shown(&t))),
            Tok::Identifier => {
                if !(self.has_func)(t.val) {
                    return Err(self.errorf(format!(
                        "function {} not defined",
                        crate::gofmt::quote(t.val)
                    )));
                }
                Arg::Identifier {
                    pos: t.pos,
                    name: t.val.to_string(),
                }
            }
            Tok::Dot => Arg::Dot { pos: t.pos },
            Tok::Nil => Arg::Nil { pos: t.pos },
            Tok::Variable => {
                let idents = chain_parts(t.val);
                if !self.vars.iter().any(|v| *v == idents[0]) {
                    return Err(self.errorf(format!(
                        "undefined variable {}",
                        crate::gofmt::quote(&idents[0])
                    )));
                }
                Arg::Variable { pos: t.pos, idents }
            }
            Tok::Field => Arg::Field {
                pos: t.pos,
                idents: chain_parts(&t.val[1..]),
            },
            Tok::Bool => Arg::Bool {
                pos: t.pos,
                val: t.val == "true",
            },
            Tok::CharConstant | Tok::Complex | Tok::Number => {
                let num = parse_number(t.val, t.tok).map_err(|m| self.errorf(m))?;
                Arg::Number { pos: t.pos, num }
            }
            Tok::LeftParen => {
                // Go's bound on nested parentheses, with its message.
                if self.expr_depth >= MAX_EXPRESSION_DEPTH {
                    return Err(self.errorf("max expression depth exceeded".into()));
                }
                self.expr_depth += 1;
                let pipe = stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || {
                    self.pipeline("parenthesized pipeline", Tok::RightParen)
                });
                self.expr_depth -= 1;
                let pipe = pipe?;
                let close = self.next();
                if close.tok != Tok::RightParen {
                    return Err(self.errorf(format!(
                        "unclosed right paren: unexpected {}",
                        self.shown(&close)
                    )));
                }
                Arg::Pipe(Box::new(pipe))
            }
            Tok::String | Tok::RawString => {
                let text = self.unquote(t.val)?;
                Arg::String {
                    pos: t.pos,
                    quoted: t.val.to_string(),
                    text,
                }
            }
            _ => {
                self.backup(t);
                return Ok(None);
            }
        }))
    }
}

enum ElseKind {
    Plain,
    If,
    With,
}

enum Parsed {
    Node(Node),
    End,
    Else(ElseKind),
}

impl Parsed {
    fn describe(&self) -> String {
        match self {
            Parsed::Node(n) => n.describe(),
            Parsed::End => "{{end}}".into(),
            Parsed::Else(_) => "{{else}}".into(),
        }
    }
}

/// Go's `parse.NewNumber` classification.
fn parse_number(text: &str, tok: Tok) -> Result<Number, String> {
    let mut n = Number {
        text: text.to_string(),
        int: None,
        is_uint: false,
        float: None,
        complex: false,
    };
    if tok == Tok::CharConstant {
        let inner = &text[1..];
        let (c, tail) =
            crate::gofmt::unquote_char(inner, '\'').ok_or_else(|| "invalid syntax".to_string())?;
        if tail != "'" {
            return Err(format!("malformed character constant: {text}"));
        }
        n.int = Some(c as i64);
        n.is_uint = true;
        n.float = Some(c as u32 as f64);
        return Ok(n);
    }
    if tok == Tok::Complex || text.ends_with('i') {
        n.complex = true;
        return Ok(n);
    }
    let u = parse_go_uint(text);
    if u.is_some() {
        n.is_uint = true;
    }
    if let Some(i) = parse_go_int(text) {
        n.int = Some(i);
        if i == 0 {
            n.is_uint = true;
        }
    }
    if let Some(i) = n.int {
        n.float = Some(i as f64);
    } else if let Some(u) = u {
        n.float = Some(u as f64);
    } else if let Some(f) = parse_go_float(text) {
        if !text.contains(['.', 'e', 'E', 'p', 'P']) {
            return Err(format!("integer overflow: {}", crate::gofmt::quote(text)));
        }
        n.float = Some(f);
        if f.fract() == 0.0 && f >= i64::MIN as f64 && f < i64::MAX as f64 {
            n.int = Some(f as i64);
        }
        if f.fract() == 0.0 && f >= 0.0 && f < u64::MAX as f64 {
            n.is_uint = true;
        }
    }
    if n.int.is_none() && !n.is_uint && n.float.is_none() {
        return Err(format!(
            "illegal number syntax: {}",
            crate::gofmt::quote(text)
        ));
    }
    Ok(n)
}

fn split_base(text: &str) -> (u32, String) {
    let lower = text.to_ascii_lowercase();
    let (base, digits) = if let Some(d) = lower.strip_prefix("0x") {
        (16, d.to_string())
    } else if let Some(d) = lower.strip_prefix("0o") {
        (8, d.to_string())
    } else if let Some(d) = lower.strip_prefix("0b") {
        (2, d.to_string())
    } else if lower.len() > 1 && lower.starts_with('0') {
        (8, lower[1..].to_string())
    } else {
        (10, lower)
    };
    (base, digits)
}

fn underscores_ok(digits: &str) -> bool {
    !digits.starts_with('_') && !digits.ends_with('_') && !digits.contains("__")
}

pub(crate) fn parse_go_uint(text: &str) -> Option<u64> {
    let text = text.strip_prefix('+').unwrap_or(text);
    if text.starts_with('-') {
        return None;
    }
    let (base, digits) = split_base(text);
    if digits.is_empty() || !underscores_ok(&digits) {
        return None;
    }
    u64::from_str_radix(&digits.replace('_', ""), base).ok()
}

pub(crate) fn parse_go_int(text: &str) -> Option<i64> {
    let (neg, rest) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let u = parse_go_uint(rest)?;
    if neg {
        if u <= i64::MAX as u64 + 1 {
            Some((u as i128).wrapping_neg() as i64)
        } else {
            None
        }
    } else {
        i64::try_from(u).ok()
    }
}

pub(crate) fn parse_go_float(text: &str) -> Option<f64> {
    let t = text.replace('_', "");
    let lower = t.to_ascii_lowercase();
    let (neg, body) = match lower.as_bytes().first() {
        Some(b'-') => (true, &lower[1..]),
        Some(b'+') => (false, &lower[1..]),
        _ => (false, &lower[..]),
    };
    let v = if let Some(hex) = body.strip_prefix("0x") {
        let (mant, exp) = hex.split_once('p')?;
        let exp: i32 = exp.parse().ok()?;
        let (ip, fp) = mant.split_once('.').unwrap_or((mant, ""));
        let mut m = 0f64;
        for c in ip.chars().chain(fp.chars()) {
            m = m * 16.0 + c.to_digit(16)? as f64;
        }
        m * 2f64.powi(exp - 4 * fp.len() as i32)
    } else {
        if body.starts_with("inf") || body.starts_with("nan") {
            return None;
        }
        body.parse::<f64>().ok()?
    };
    Some(if neg { -v } else { v })
}

/// Trees nest as deep as the parser's bounds allow (10000 parentheses, 10000 blocks), and the
/// compiler's drop recurses several frames a level, more than a 2 MiB stack holds: nested
/// pipelines and block bodies are taken out onto a heap stack and dropped one at a time.
impl Drop for Pipe {
    fn drop(&mut self) {
        let mut pending: Vec<Pipe> = Vec::new();
        take_pipes(self, &mut pending);
        while let Some(mut pipe) = pending.pop() {
            take_pipes(&mut pipe, &mut pending);
        }
    }
}

fn take_pipes(pipe: &mut Pipe, pending: &mut Vec<Pipe>) {
    for cmd in &mut pipe.cmds {
        for arg in &mut cmd.args {
            take_pipe(arg, pending);
        }
    }
}

fn take_pipe(arg: &mut Arg, pending: &mut Vec<Pipe>) {
    match arg {
        Arg::Pipe(_) => {
            if let Arg::Pipe(inner) = std::mem::replace(arg, Arg::Dot { pos: 0 }) {
                pending.push(*inner);
            }
        }
        // A chain's node is a term: a pipeline at most, never another chain.
        Arg::Chain { node, .. } => take_pipe(node, pending),
        _ => {}
    }
}

impl Drop for List {
    fn drop(&mut self) {
        let mut pending: Vec<List> = Vec::new();
        take_lists(self, &mut pending);
        while let Some(mut list) = pending.pop() {
            take_lists(&mut list, &mut pending);
        }
    }
}

fn take_lists(list: &mut List, pending: &mut Vec<List>) {
    for node in &mut list.nodes {
        if let Node::If(b) | Node::Range(b) | Node::With(b) = node {
            if !b.list.nodes.is_empty() {
                pending.push(std::mem::take(&mut b.list));
            }
            if let Some(e) = b.else_list.take() {
                pending.push(e);
            }
        }
    }
}
