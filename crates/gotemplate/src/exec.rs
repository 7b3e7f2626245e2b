//! The executor: Go's `text/template` evaluation rules, its scoping, and its error texts.

use std::any::Any;
use std::sync::Arc;

use crate::builtins;
use crate::error::{Error, ErrorKind};
use crate::funcs::{Context, Function, Type};
use crate::gofmt;
use crate::parse::{Arg, Branch, Command, List, Node, Pipe, Tree};
use crate::substitution::Substitution;
use crate::template::{MissingKey, Templates};
use crate::value::Value;

/// What nested executions share: the depth, the host's state, the substitution watched.
pub(crate) struct Shared<'h> {
    pub depth: usize,
    pub host: Option<&'h mut dyn Any>,
    pub watch: Option<&'h mut Substitution>,
}

/// A value during evaluation. `None` is Go's invalid `reflect.Value` ("no value"); `iface` says
/// the value sits in an `interface{}` (a map or list element), which Go's messages name.
#[derive(Clone)]
struct Ev {
    val: Option<Value>,
    iface: bool,
}

impl Ev {
    fn concrete(v: Value) -> Ev {
        Ev {
            val: Some(v),
            iface: false,
        }
    }

    fn boxed(v: Value) -> Ev {
        Ev {
            val: Some(v),
            iface: true,
        }
    }

    fn invalid() -> Ev {
        Ev {
            val: None,
            iface: false,
        }
    }

    /// Go digs a pipeline's `interface{}` result out: a nil one becomes no value.
    fn dig(self) -> Ev {
        match self.val {
            Some(Value::Nil) => Ev::invalid(),
            Some(v) => Ev::concrete(v),
            None => Ev::invalid(),
        }
    }

    fn into_value(self) -> Value {
        self.val.unwrap_or(Value::Nil)
    }

    fn type_name(&self) -> String {
        match &self.val {
            None => "<nil>".into(),
            Some(_) if self.iface => "interface {}".into(),
            Some(v) => v.type_name(),
        }
    }
}

enum Flow {
    Normal,
    Break,
    Continue,
}

/// The node an error message says execution was at (Go's `Node.String()`), written out only
/// when an error needs it: describing it for every call and field would cost more than the
/// evaluation itself.
#[derive(Clone, Copy)]
enum At<'n> {
    Arg(&'n Arg),
    Command(&'n Command),
    Name(&'n str),
}

impl At<'_> {
    fn describe(self) -> String {
        match self {
            At::Arg(a) => a.describe(),
            At::Command(c) => c.describe(),
            At::Name(n) => n.to_string(),
        }
    }
}

type R<T> = Result<T, Error>;

/// Recursion of nested templates, blocks and pipelines switches to a new stack segment of
/// `STACK_SEGMENT` bytes when less than `STACK_RED_ZONE` is left (see `stacker`).
pub(crate) const STACK_RED_ZONE: usize = 64 * 1024;
pub(crate) const STACK_SEGMENT: usize = 1024 * 1024;

pub(crate) fn is_empty_tree(t: &Tree) -> bool {
    t.root.nodes.iter().all(|n| match n {
        Node::Text(t) => t
            .trim_matches(|c: char| c.is_ascii_whitespace() || c == '\x0b')
            .is_empty(),
        _ => false,
    })
}

pub(crate) fn execute_root(
    set: &Templates,
    name: &str,
    data: &Value,
    host: Option<&mut dyn Any>,
    watch: Option<&mut Substitution>,
) -> R<String> {
    let mut shared = Shared {
        depth: 0,
        host,
        watch,
    };
    let out = execute_named(set, &mut shared, name, data, true)?;
    if let Some(watch) = shared.watch {
        watch.printed(name, &out);
    }
    Ok(out)
}

pub(crate) fn execute_nested(
    set: &Templates,
    shared: &mut Shared<'_>,
    name: &str,
    data: &Value,
) -> R<String> {
    if shared.depth >= set.limits.max_depth {
        return Err(Error::limit(format!(
            "template: {name}: exceeded maximum template depth ({})",
            set.limits.max_depth
        )));
    }
    shared.depth += 1;
    let r = execute_named(set, shared, name, data, false);
    shared.depth -= 1;
    r
}

fn execute_named(
    set: &Templates,
    shared: &mut Shared<'_>,
    name: &str,
    data: &Value,
    root: bool,
) -> R<String> {
    let Some(tree) = set.trees.get(name) else {
        let msg = if root && set.trees.is_empty() {
            format!(
                "template: {}: {} is an incomplete or empty template",
                name,
                gofmt::quote(name)
            )
        } else {
            format!(
                "template: no template {} associated with template {}",
                gofmt::quote(name),
                gofmt::quote(&set.name)
            )
        };
        return Err(Error::exec(msg));
    };
    let tree = tree.clone();
    let mut st = State {
        set,
        shared,
        tree: tree.clone(),
        vars: vec![("$".to_string(), Ev::concrete(data.clone()))],
        // Templates are mostly text: sized so, the output (a chart's CRDs are megabytes of
        // it) is not copied again and again as it grows.
        out: String::with_capacity(tree.text_size.min(set.limits.max_output)),
    };
    st.walk_list(&Ev::concrete(data.clone()), &tree.root)?;
    Ok(st.out)
}

struct State<'s, 'h> {
    set: &'s Templates,
    shared: &'s mut Shared<'h>,
    tree: Arc<Tree>,
    vars: Vec<(String, Ev)>,
    out: String,
}

impl State<'_, '_> {
    fn location(&self, pos: usize) -> String {
        let text = &self.tree.text;
        let pos = pos.min(text.len());
        let before = text.get(..pos).unwrap_or("");
        let line = 1 + before.bytes().filter(|&b| b == b'\n').count();
        let col = match before.rfind('\n') {
            Some(i) => pos - (i + 1),
            None => pos,
        };
        format!("{}:{}:{}", self.tree.parse_name, line, col)
    }

    /// Go's `state.errorf` with the node the error is at.
    fn err_at(&self, pos: usize, context: &str, msg: impl AsRef<str>) -> Error {
        Error::exec(format!(
            "template: {}: executing {} at <{}>: {}",
            self.location(pos),
            gofmt::quote(&self.tree.name),
            context,
            msg.as_ref()
        ))
    }

    fn write(&mut self, s: &str) -> R<()> {
        if self.out.len() + s.len() > self.set.limits.max_output {
            return Err(Error::limit(format!(
                "template: {}: output exceeds the limit of {} bytes",
                self.tree.name, self.set.limits.max_output
            )));
        }
        self.out.push_str(s);
        Ok(())
    }

    /// Blocks nest as deep as the parser allows ([`crate::parse::MAX_BLOCK_DEPTH`]), and each
    /// level recurses here: the stack grows on the heap rather than overflow.
    fn walk_list(&mut self, dot: &Ev, list: &List) -> R<Flow> {
        stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || self.walk_nodes(dot, list))
    }

    fn walk_nodes(&mut self, dot: &Ev, list: &List) -> R<Flow> {
        for n in &list.nodes {
            match self.walk(dot, n)? {
                Flow::Normal => {}
                f => return Ok(f),
            }
        }
        Ok(Flow::Normal)
    }

    fn walk(&mut self, dot: &Ev, node: &Node) -> R<Flow> {
        match node {
            Node::Text(t) => {
                self.write(t)?;
            }
            Node::Action { pos, pipe } => {
                let v = self.eval_pipeline(dot, pipe)?;
                if pipe.decl.is_empty() {
                    let s = match &v.val {
                        None => "<no value>".to_string(),
                        Some(v) => gofmt::sprint_value(v),
                    };
                    let _ = pos;
                    self.write(&s)?;
                }
            }
            Node::If(b) => return self.walk_if_with(dot, b, false),
            Node::With(b) => return self.walk_if_with(dot, b, true),
            Node::Range(b) => return self.walk_range(dot, b),
            Node::Template { pos, name, pipe } => {
                let data = match pipe {
                    Some(p) => self.eval_pipeline(dot, p)?,
                    None => Ev::invalid(),
                };
                if !self.set.trees.contains_key(name) {
                    return Err(self.err_at(
                        *pos,
                        &node.describe(),
                        format!("template {} not defined", gofmt::quote(name)),
                    ));
                }
                if self.shared.depth >= self.set.limits.max_depth {
                    return Err(Error::limit(format!(
                        "{}",
                        self.err_at(
                            *pos,
                            &node.describe(),
                            format!(
                                "exceeded maximum template depth ({})",
                                self.set.limits.max_depth
                            )
                        )
                    )));
                }
                let tree = self.set.trees[name].clone();
                self.shared.depth += 1;
                let saved_tree = std::mem::replace(&mut self.tree, tree.clone());
                let saved_vars =
                    std::mem::replace(&mut self.vars, vec![("$".to_string(), data.clone())]);
                let r = self.walk_list(&data, &tree.root);
                self.vars = saved_vars;
                self.tree = saved_tree;
                self.shared.depth -= 1;
                r?;
            }
            Node::Break => return Ok(Flow::Break),
            Node::Continue => return Ok(Flow::Continue),
        }
        Ok(Flow::Normal)
    }

    fn walk_if_with(&mut self, dot: &Ev, b: &Branch, with: bool) -> R<Flow> {
        let mark = self.vars.len();
        let v = self.eval_pipeline(dot, &b.pipe)?;
        let truth = v.val.as_ref().is_some_and(Value::truthy);
        let r = if truth {
            if with {
                self.walk_list(&v, &b.list)
            } else {
                self.walk_list(dot, &b.list)
            }
        } else if let Some(e) = &b.else_list {
            self.walk_list(dot, e)
        } else {
            Ok(Flow::Normal)
        };
        self.vars.truncate(mark);
        r
    }

    fn walk_range(&mut self, dot: &Ev, b: &Branch) -> R<Flow> {
        let mark = self.vars.len();
        let v = self.eval_pipeline(dot, &b.pipe)?;
        // The range variables were pushed by the pipeline's declarations; iterations set them.
        let r = self.range_over(dot, b, v, mark);
        self.vars.truncate(mark);
        r.map(|_| Flow::Normal)
    }

    fn range_over(&mut self, dot: &Ev, b: &Branch, v: Ev, mark: usize) -> R<()> {
        let ndecl = b.pipe.decl.len();
        let mut items: Vec<(Value, Ev)> = Vec::new();
        // A named map or slice with methods (Helm's `.Files`) ranges as that map or slice.
        let val = v.val.as_ref().map(Value::underlying);
        match val.as_deref() {
            None => {}
            Some(Value::List(l)) => {
                for (i, x) in l.iter().enumerate() {
                    items.push((Value::from(i), Ev::boxed(x.clone())));
                }
            }
            Some(Value::Bytes(bytes)) => {
                for (i, x) in Value::byte_items(bytes).into_iter().enumerate() {
                    items.push((Value::from(i), Ev::concrete(x)));
                }
            }
            Some(Value::Map(m)) => {
                let entries = m.entries();
                if let Some(watch) = self.shared.watch.as_deref_mut() {
                    watch.ranged_over(entries.iter().map(|(k, _)| k.clone()));
                }
                for (k, x) in entries {
                    items.push((Value::String(k), Ev::boxed(x)));
                }
            }
            Some(Value::Int(n)) => {
                if ndecl > 1 {
                    let (pos, ctx) = b.pipe.last_node();
                    return Err(self.err_at(
                        pos,
                        &ctx,
                        format!("can't use {n} to iterate over more than one variable"),
                    ));
                }
                for i in 0..(*n).max(0) {
                    items.push((Value::Int(i), Ev::concrete(Value::Int(i))));
                }
            }
            Some(Value::Nil) => {}
            Some(other) => {
                let (pos, ctx) = b.pipe.last_node();
                return Err(self.err_at(
                    pos,
                    &ctx,
                    format!("range can't iterate over {}", gofmt::sprint_value(other)),
                ));
            }
        }
        if items.is_empty() {
            if let Some(e) = &b.else_list {
                self.walk_list(dot, e)?;
            }
            return Ok(());
        }
        for (key, elem) in items {
            self.vars.truncate(mark);
            // Range declarations: one variable gets the element; two get key and element.
            if ndecl == 1 {
                self.vars.push((b.pipe.decl[0].name.clone(), elem.clone()));
            } else if ndecl >= 2 {
                self.vars
                    .push((b.pipe.decl[0].name.clone(), Ev::concrete(key)));
                self.vars.push((b.pipe.decl[1].name.clone(), elem.clone()));
            }
            match self.walk_list(&elem, &b.list)? {
                Flow::Break => break,
                Flow::Continue | Flow::Normal => {}
            }
        }
        Ok(())
    }

    /// Parenthesized pipelines nest up to Go's 10000 levels; each recurses here.
    fn eval_pipeline(&mut self, dot: &Ev, pipe: &Pipe) -> R<Ev> {
        stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || {
            self.eval_pipeline_here(dot, pipe)
        })
    }

    fn eval_pipeline_here(&mut self, dot: &Ev, pipe: &Pipe) -> R<Ev> {
        let mut value: Option<Ev> = None;
        for cmd in &pipe.cmds {
            let v = self.eval_command(dot, cmd, value.take())?;
            value = Some(v.dig());
        }
        let value = value.unwrap_or_else(Ev::invalid);
        for var in &pipe.decl {
            if pipe.is_assign {
                self.set_var(&var.name, value.clone());
            } else {
                self.vars.push((var.name.clone(), value.clone()));
            }
        }
        Ok(value)
    }

    fn set_var(&mut self, name: &str, v: Ev) {
        if let Some(slot) = self.vars.iter_mut().rev().find(|(n, _)| n == name) {
            slot.1 = v;
        }
    }

    fn var(&self, pos: usize, name: &str) -> R<Ev> {
        match self.vars.iter().rev().find(|(n, _)| n == name) {
            Some((_, v)) => Ok(v.clone()),
            None => Err(self.err_at(pos, name, format!("undefined variable: {name}"))),
        }
    }

    fn not_a_function(&self, cmd: &Command, final_: &Option<Ev>) -> R<()> {
        if cmd.args.len() > 1 || final_.is_some() {
            let first = &cmd.args[0];
            return Err(self.err_at(
                first.pos(),
                &first.describe(),
                format!("can't give argument to non-function {}", first.describe()),
            ));
        }
        Ok(())
    }

    fn eval_command(&mut self, dot: &Ev, cmd: &Command, final_: Option<Ev>) -> R<Ev> {
        let first = &cmd.args[0];
        match first {
            Arg::Field { pos, idents } => {
                return self.eval_field_chain(dot, dot.clone(), first, *pos, idents, cmd, final_);
            }
            Arg::Chain { pos, node, fields } => {
                if let Arg::Nil { .. } = node.as_ref() {
                    return Err(self.err_at(
                        *pos,
                        &first.describe(),
                        format!("indirection through explicit nil in {}", first.describe()),
                    ));
                }
                let recv = self.eval_arg_any(dot, node)?;
                return self.eval_field_chain(dot, recv, first, *pos, fields, cmd, final_);
            }
            Arg::Identifier { pos, name } => {
                return self.eval_function(dot, *pos, name, Some(cmd), final_);
            }
            Arg::Pipe(p) => {
                self.not_a_function(cmd, &final_)?;
                return self.eval_pipeline(dot, p);
            }
            Arg::Variable { pos, idents } => {
                let v = self.var(*pos, &idents[0])?;
                if idents.len() == 1 {
                    self.not_a_function(cmd, &final_)?;
                    return Ok(v);
                }
                return self.eval_field_chain(dot, v, first, *pos, &idents[1..], cmd, final_);
            }
            _ => {}
        }
        self.not_a_function(cmd, &final_)?;
        match first {
            Arg::Bool { val, .. } => Ok(Ev::concrete(Value::Bool(*val))),
            Arg::Dot { .. } => Ok(dot.clone()),
            Arg::Nil { pos } => Err(self.err_at(*pos, "nil", "nil is not a command")),
            Arg::Number { pos, num } => self.ideal_constant(*pos, num).map(Ev::concrete),
            Arg::String { text, .. } => Ok(Ev::concrete(Value::String(text.clone()))),
            _ => Err(self.err_at(first.pos(), &first.describe(), "can't evaluate command")),
        }
    }

    fn ideal_constant(&self, pos: usize, num: &crate::parse::Number) -> R<Value> {
        let t = &num.text;
        if num.complex {
            return Err(self.err_at(pos, t, "complex numbers are not supported"));
        }
        let hex_int = (t.starts_with("0x") || t.starts_with("0X")) && !t.contains(['p', 'P']);
        let rune_int = t.starts_with('\'');
        if let Some(f) = num.float
            && !hex_int
            && !rune_int
            && t.contains(['.', 'e', 'E', 'p', 'P'])
        {
            return Ok(Value::Float(f));
        }
        if let Some(i) = num.int {
            return Ok(Value::Int(i));
        }
        Err(self.err_at(pos, t, format!("{t} overflows int")))
    }

    /// Evaluates a field chain `.A.B.C` on `recv`; the last field gets the command's
    /// arguments when it is a method.
    #[allow(clippy::too_many_arguments)]
    fn eval_field_chain(
        &mut self,
        dot: &Ev,
        recv: Ev,
        node: &Arg,
        pos: usize,
        idents: &[String],
        cmd: &Command,
        final_: Option<Ev>,
    ) -> R<Ev> {
        let ctx = At::Arg(node);
        let mut recv = recv;
        let n = idents.len();
        let mut final_ = final_;
        for (i, id) in idents.iter().enumerate() {
            let last = i + 1 == n;
            recv = if last {
                self.eval_field(dot, pos, ctx, id, recv, Some(cmd), final_.take())?
            } else {
                self.eval_field(dot, pos, ctx, id, recv, None, None)?
            };
        }
        Ok(recv)
    }

    #[allow(clippy::too_many_arguments)]
    fn eval_field(
        &mut self,
        dot: &Ev,
        pos: usize,
        at: At<'_>,
        name: &str,
        recv: Ev,
        cmd: Option<&Command>,
        final_: Option<Ev>,
    ) -> R<Ev> {
        let has_args = cmd.is_some_and(|c| c.args.len() > 1) || final_.is_some();
        let Some(v) = &recv.val else {
            if self.set.missing_key == MissingKey::Error {
                return Err(self.err_at(
                    pos,
                    &at.describe(),
                    format!("nil data; no entry for key {}", gofmt::quote(name)),
                ));
            }
            return Ok(Ev::invalid());
        };
        match v {
            Value::Object(o) => {
                let o = o.clone();
                let args = match cmd {
                    Some(c) => self.eval_args_any(dot, &c.args[1..], final_)?,
                    None => Vec::new(),
                };
                if let Some(watch) = self.shared.watch.as_deref_mut() {
                    watch.method_called(name, &args);
                }
                if let Some(r) = o.call_method(name, &args) {
                    return match r {
                        Ok(v) => Ok(Ev::concrete(v)),
                        Err(e) if e.kind == ErrorKind::Limit => Err(e),
                        Err(e)
                            if e.kind == ErrorKind::Exec
                                && e.message.starts_with("wrong number of args") =>
                        {
                            Err(self.err_at(pos, &at.describe(), e.message))
                        }
                        Err(e) => Err(self.err_at(
                            pos,
                            &at.describe(),
                            format!("error calling {name}: {}", e.message),
                        )),
                    };
                }
                if let Some(f) = o.field(name) {
                    if has_args {
                        return Err(self.err_at(
                            pos,
                            &at.describe(),
                            format!("{name} has arguments but cannot be invoked as function"),
                        ));
                    }
                    return Ok(Ev::concrete(f));
                }
                // A named map with methods (Helm's `.Files`): a name that is no method is a key.
                if let Some(Value::Map(ref m)) = o.underlying() {
                    if has_args {
                        return Err(self.err_at(
                            pos,
                            &at.describe(),
                            format!("{name} is not a method but has arguments"),
                        ));
                    }
                    return match m.get(name) {
                        Some(x) => Ok(Ev::concrete(x)),
                        None => match self.set.missing_key {
                            MissingKey::Default => Ok(Ev::invalid()),
                            MissingKey::Zero => Ok(Ev::concrete(o.zero_element())),
                            MissingKey::Error => Err(self.err_at(
                                pos,
                                &at.describe(),
                                format!("map has no entry for key {}", gofmt::quote(name)),
                            )),
                        },
                    };
                }
                Err(self.err_at(
                    pos,
                    &at.describe(),
                    format!("can't evaluate field {name} in type {}", recv.type_name()),
                ))
            }
            Value::Map(m) => {
                if has_args {
                    return Err(self.err_at(
                        pos,
                        &at.describe(),
                        format!("{name} is not a method but has arguments"),
                    ));
                }
                match m.get(name) {
                    Some(x) => Ok(Ev::boxed(x)),
                    None => match self.set.missing_key {
                        MissingKey::Default => Ok(Ev::invalid()),
                        MissingKey::Zero => Ok(Ev::boxed(Value::Nil)),
                        MissingKey::Error => Err(self.err_at(
                            pos,
                            &at.describe(),
                            format!("map has no entry for key {}", gofmt::quote(name)),
                        )),
                    },
                }
            }
            Value::Nil => Err(self.err_at(
                pos,
                &at.describe(),
                format!("nil pointer evaluating {}.{name}", recv.type_name()),
            )),
            _ => Err(self.err_at(
                pos,
                &at.describe(),
                format!("can't evaluate field {name} in type {}", recv.type_name()),
            )),
        }
    }

    fn eval_args_any(&mut self, dot: &Ev, args: &[Arg], final_: Option<Ev>) -> R<Vec<Value>> {
        let mut out = Vec::with_capacity(args.len() + 1);
        for a in args {
            out.push(self.eval_arg_any(dot, a)?.into_value());
        }
        if let Some(f) = final_ {
            out.push(f.into_value());
        }
        Ok(out)
    }

    /// Evaluates an argument for an `interface{}` parameter.
    fn eval_arg_any(&mut self, dot: &Ev, a: &Arg) -> R<Ev> {
        match a {
            Arg::Dot { .. } => Ok(dot.clone()),
            Arg::Nil { .. } => Ok(Ev::concrete(Value::Nil)),
            Arg::Field { pos, idents } => {
                self.eval_field_chain_noargs(dot, dot.clone(), a, *pos, idents)
            }
            Arg::Variable { pos, idents } => {
                let v = self.var(*pos, &idents[0])?;
                if idents.len() == 1 {
                    return Ok(v);
                }
                self.eval_field_chain_noargs(dot, v, a, *pos, &idents[1..])
            }
            Arg::Pipe(p) => self.eval_pipeline(dot, p),
            Arg::Identifier { pos, name } => self.eval_function(dot, *pos, name, None, None),
            Arg::Chain { pos, node, fields } => {
                if let Arg::Nil { .. } = node.as_ref() {
                    return Err(self.err_at(
                        *pos,
                        &a.describe(),
                        format!("indirection through explicit nil in {}", a.describe()),
                    ));
                }
                let recv = self.eval_arg_any(dot, node)?;
                self.eval_field_chain_noargs(dot, recv, a, *pos, fields)
            }
            Arg::Bool { val, .. } => Ok(Ev::concrete(Value::Bool(*val))),
            Arg::Number { pos, num } => self.ideal_constant(*pos, num).map(Ev::concrete),
            Arg::String { text, .. } => Ok(Ev::concrete(Value::String(text.clone()))),
        }
    }

    fn eval_field_chain_noargs(
        &mut self,
        dot: &Ev,
        recv: Ev,
        node: &Arg,
        pos: usize,
        idents: &[String],
    ) -> R<Ev> {
        let mut recv = recv;
        for id in idents {
            recv = self.eval_field(dot, pos, At::Arg(node), id, recv, None, None)?;
        }
        Ok(recv)
    }

    /// Evaluates an argument for a parameter of type `t`, with Go's conversions and messages.
    fn eval_arg_typed(&mut self, dot: &Ev, a: &Arg, t: Type) -> R<Value> {
        let literal_err = |st: &Self, what: &str| -> Error {
            st.err_at(
                a.pos(),
                &a.describe(),
                format!("expected {what}; found {}", a.describe()),
            )
        };
        match a {
            Arg::Nil { pos } => {
                if t.can_be_nil() {
                    return Ok(Value::Nil);
                }
                return Err(self.err_at(
                    *pos,
                    "nil",
                    format!("cannot assign nil to {}", t.go_name()),
                ));
            }
            Arg::Bool { val, .. } => {
                return match t {
                    Type::Any | Type::Bool => Ok(Value::Bool(*val)),
                    Type::String => Err(literal_err(self, "string")),
                    Type::Int => Err(literal_err(self, "integer")),
                    Type::Float => Err(literal_err(self, "float")),
                    _ => Err(self.cant_handle(a, t)),
                };
            }
            Arg::String { text, .. } => {
                return match t {
                    Type::Any | Type::String => Ok(Value::String(text.clone())),
                    Type::Bool => Err(literal_err(self, "bool")),
                    Type::Int => Err(literal_err(self, "integer")),
                    Type::Float => Err(literal_err(self, "float")),
                    _ => Err(self.cant_handle(a, t)),
                };
            }
            Arg::Number { pos, num } => {
                return match t {
                    Type::Any => self.ideal_constant(*pos, num),
                    Type::Int => match num.int {
                        Some(i) if !num.complex => Ok(Value::Int(i)),
                        _ => Err(literal_err(self, "integer")),
                    },
                    Type::Float => match num.float {
                        Some(f) if !num.complex => Ok(Value::Float(f)),
                        _ => Err(literal_err(self, "float")),
                    },
                    Type::String => Err(literal_err(self, "string")),
                    Type::Bool => Err(literal_err(self, "bool")),
                    _ => Err(self.cant_handle(a, t)),
                };
            }
            _ => {}
        }
        let v = self.eval_arg_any(dot, a)?;
        self.validate_type(a.pos(), At::Arg(a), v, t)
    }

    fn cant_handle(&self, a: &Arg, t: Type) -> Error {
        self.err_at(
            a.pos(),
            &a.describe(),
            format!(
                "can't handle {} for arg of type {}",
                a.describe(),
                t.go_name()
            ),
        )
    }

    /// Go's `validateType`.
    fn validate_type(&self, pos: usize, at: At<'_>, v: Ev, t: Type) -> R<Value> {
        match v.val {
            None => {
                if t.can_be_nil() {
                    return Ok(Value::Nil);
                }
                Err(self.err_at(
                    pos,
                    &at.describe(),
                    format!("invalid value; expected {}", t.go_name()),
                ))
            }
            Some(x) => {
                if t == Type::Any || t.accepts(&x) {
                    return Ok(x);
                }
                let got = if x.is_nil() {
                    "interface {}".to_string()
                } else {
                    x.type_name()
                };
                Err(self.err_at(
                    pos,
                    &at.describe(),
                    format!(
                        "wrong type for value; expected {}; got {}",
                        t.go_name(),
                        got
                    ),
                ))
            }
        }
    }

    fn eval_function(
        &mut self,
        dot: &Ev,
        pos: usize,
        name: &str,
        cmd: Option<&Command>,
        final_: Option<Ev>,
    ) -> R<Ev> {
        let set = self.set;
        let user = set.funcs.get(name);
        let args: &[Arg] = match cmd {
            Some(c) => &c.args[1..],
            None => &[],
        };
        let cmd_at = cmd.map(At::Command);
        let cmd_pos = cmd.map(|c| c.pos).unwrap_or(pos);
        if let Some(f) = user {
            return self.call_function(dot, pos, name, f, args, final_, cmd_pos, cmd_at);
        }
        // Built-ins.
        match name {
            "and" | "or" => {
                if args.is_empty() && final_.is_none() {
                    return Err(self.err_at(
                        pos,
                        name,
                        format!("wrong number of args for {name}: want at least 1 got 0"),
                    ));
                }
                let want = name == "or";
                let mut v = Ev::invalid();
                for a in args {
                    v = self.eval_arg_any(dot, a)?;
                    if v.val.as_ref().is_some_and(Value::truthy) == want {
                        return Ok(v);
                    }
                }
                if let Some(f) = final_ {
                    v = f;
                }
                return Ok(v);
            }
            _ => {}
        }
        let Some(b) = builtins::builtin(name) else {
            return Err(self.err_at(
                pos,
                name,
                format!("{} is not a defined function", gofmt::quote(name)),
            ));
        };
        self.call_function(dot, pos, name, b, args, final_, cmd_pos, cmd_at)
    }

    #[allow(clippy::too_many_arguments)]
    fn call_function(
        &mut self,
        dot: &Ev,
        pos: usize,
        name: &str,
        f: &Function,
        args: &[Arg],
        final_: Option<Ev>,
        cmd_pos: usize,
        cmd_at: Option<At<'_>>,
    ) -> R<Ev> {
        let num_in = args.len() + usize::from(final_.is_some());
        if f.variadic.is_some() {
            if num_in < f.params.len() {
                return Err(self.err_at(
                    pos,
                    name,
                    format!(
                        "wrong number of args for {name}: want at least {} got {}",
                        f.params.len(),
                        args.len()
                    ),
                ));
            }
        } else if num_in != f.params.len() {
            return Err(self.err_at(
                pos,
                name,
                format!(
                    "wrong number of args for {name}: want {} got {}",
                    f.params.len(),
                    num_in
                ),
            ));
        }
        let mut argv = Vec::with_capacity(num_in);
        for (i, a) in args.iter().enumerate() {
            argv.push(self.eval_arg_typed(dot, a, f.param(i))?);
        }
        if let Some(fin) = final_ {
            let t = f.param(num_in - 1);
            argv.push(self.validate_type(pos, At::Name(name), fin, t)?);
        }
        let tree = self.tree.clone();
        let mut cx = Context {
            set: self.set,
            shared: self.shared,
            template_name: &tree.name,
        };
        match (f.body)(&mut cx, &argv) {
            Ok(v) => {
                // Taken out while the function may run again (it gets the shared state).
                if let Some(watch) = self.shared.watch.take() {
                    if watch.holds() {
                        let mut cx = Context {
                            set: self.set,
                            shared: self.shared,
                            template_name: &tree.name,
                        };
                        watch.called(name, f.effects, &argv, &v, |args| (f.body)(&mut cx, args));
                    }
                    self.shared.watch = Some(watch);
                }
                Ok(Ev::concrete(v))
            }
            Err(e) if e.kind == ErrorKind::Limit => Err(e),
            Err(e) => {
                let ctx = cmd_at.unwrap_or(At::Name(name)).describe();
                Err(self.err_at(
                    cmd_pos,
                    &ctx,
                    format!("error calling {name}: {}", e.message),
                ))
            }
        }
    }
}
