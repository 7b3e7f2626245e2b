//! The lexer of Go's text/template: the same tokens, trim markers and error texts.

use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    Error,
    Bool,
    Char,
    CharConstant,
    Complex,
    Assign,
    Declare,
    Eof,
    Field,
    Identifier,
    LeftDelim,
    LeftParen,
    Number,
    Pipe,
    RawString,
    RightDelim,
    RightParen,
    Space,
    String,
    Text,
    Variable,
    // Keywords: printed as <word> in parse errors.
    Block,
    Break,
    Continue,
    Dot,
    Define,
    Else,
    End,
    If,
    Nil,
    Range,
    Template,
    With,
}

impl Tok {
    fn is_keyword(self) -> bool {
        matches!(
            self,
            Tok::Block
                | Tok::Break
                | Tok::Continue
                | Tok::Dot
                | Tok::Define
                | Tok::Else
                | Tok::End
                | Tok::If
                | Tok::Nil
                | Tok::Range
                | Tok::Template
                | Tok::With
        )
    }
}

/// A token. Its text borrows the template text, so that the parser's look-ahead copies it as
/// plain bytes (an `Error` item's text is empty: its message is [`Items::error_message`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Item<'a> {
    pub tok: Tok,
    pub pos: usize,
    pub val: &'a str,
    /// A position on the item's line (its own start, for lexed items): the line number is
    /// counted from it only when an error message needs it.
    pub line_pos: usize,
}

impl std::fmt::Display for Item<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.tok {
            Tok::Eof => f.write_str("EOF"),
            // Empty: the message is the lexer's, which the parser shows (`Parser::shown`).
            Tok::Error => f.write_str(self.val),
            t if t.is_keyword() => write!(f, "<{}>", self.val),
            _ if self.val.chars().count() > 10 => {
                let short: String = self.val.chars().take(10).collect();
                write!(f, "{}...", crate::gofmt::quote(&short))
            }
            _ => f.write_str(&crate::gofmt::quote(self.val)),
        }
    }
}

const LEFT_COMMENT: &str = "/*";
const RIGHT_COMMENT: &str = "*/";
const TRIM_MARKER_LEN: usize = 2;

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n')
}

fn is_alnum(c: char) -> bool {
    c == '_' || c.is_alphabetic() || c.is_numeric()
}

fn has_left_trim_marker(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 2 && b[0] == b'-' && is_space(b[1])
}

fn has_right_trim_marker(b: &[u8]) -> bool {
    b.len() >= 2 && is_space(b[0]) && b[1] == b'-'
}

fn right_trim_len(s: &str) -> usize {
    s.len() - s.trim_end_matches([' ', '\t', '\r', '\n']).len()
}

fn left_trim_len(s: &str) -> usize {
    s.len() - s.trim_start_matches([' ', '\t', '\r', '\n']).len()
}

/// `text` starts with `delim`, compared byte by byte: asked at every token of an action, with
/// a delimiter of two bytes, where `str::starts_with` called the C library's `memcmp`.
fn starts_with_delim(text: &[u8], delim: &str) -> bool {
    let delim = delim.as_bytes();
    text.len() >= delim.len() && text.iter().zip(delim).all(|(a, b)| a == b)
}

/// Where `delim` first occurs in `text`. Templates are mostly text, so the search runs at the
/// speed of a SIMD byte search for the delimiter's first byte (`str::find` with a string pattern
/// steps through the text far more slowly).
fn find_delim(text: &str, delim: &str) -> Option<usize> {
    let (hay, needle) = (text.as_bytes(), delim.as_bytes());
    let first = *needle.first()?;
    let mut from = 0;
    while let Some(i) = memchr::memchr(first, &hay[from..]) {
        let at = from + i;
        if hay[at..].starts_with(needle) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// The `%#U` of Go's fmt: `U+0023 '#'`.
fn sharp_u(c: char) -> String {
    if c.is_control() {
        format!("U+{:04X}", c as u32)
    } else {
        format!("U+{:04X} '{}'", c as u32, c)
    }
}

/// The items of `input`, lexed as the parser asks for them, as Go's lexer does: a list of every
/// item was ~40K items (1.6 MB of fresh memory) for redis's templates, held only to be read
/// once in order. The last item is `Eof` or `Error`, and `None` follows it.
/// `break_ok`/`continue_ok`: the keywords are keywords unless a function has their name.
pub(crate) struct Items<'a> {
    lexer: Lexer<'a>,
    state: State,
}

impl<'a> Items<'a> {
    pub(crate) fn new(input: &'a str, break_ok: bool, continue_ok: bool) -> Items<'a> {
        Items {
            lexer: Lexer {
                input,
                start: 0,
                pos: 0,
                items: VecDeque::new(),
                paren_depth: 0,
                break_ok,
                continue_ok,
                left: "{{",
                right: "}}",
                error: String::new(),
            },
            state: State::Text,
        }
    }

    /// The message of the `Error` item that ended the items (empty before one).
    pub(crate) fn error_message(&self) -> &str {
        &self.lexer.error
    }
}

impl<'a> Iterator for Items<'a> {
    type Item = Item<'a>;

    fn next(&mut self) -> Option<Item<'a>> {
        loop {
            if let Some(item) = self.lexer.items.pop_front() {
                return Some(item);
            }
            self.state = match self.state {
                State::Text => self.lexer.lex_text(),
                State::LeftDelim => self.lexer.lex_left_delim(),
                State::Comment => self.lexer.lex_comment(),
                State::RightDelim => self.lexer.lex_right_delim(),
                State::InsideAction => self.lexer.lex_inside_action(),
                State::Done => return None,
            };
        }
    }
}

struct Lexer<'a> {
    input: &'a str,
    start: usize,
    pos: usize,
    /// Items emitted by the last state and not taken yet (a state emits one to three).
    items: VecDeque<Item<'a>>,
    paren_depth: i64,
    break_ok: bool,
    continue_ok: bool,
    left: &'static str,
    right: &'static str,
    /// The message of the `Error` item, the last one emitted.
    error: String,
}

enum State {
    Text,
    LeftDelim,
    Comment,
    RightDelim,
    InsideAction,
    Done,
}

impl<'a> Lexer<'a> {
    fn rest(&self) -> &str {
        &self.input[self.pos..]
    }

    fn emit(&mut self, tok: Tok) {
        let val = &self.input[self.start..self.pos];
        self.emit_val(tok, self.start, val);
        self.start = self.pos;
    }

    fn emit_val(&mut self, tok: Tok, pos: usize, val: &'a str) {
        self.items.push_back(Item {
            tok,
            pos,
            val,
            line_pos: pos,
        });
    }

    fn error(&mut self, msg: String) -> State {
        self.error = msg;
        self.emit_val(Tok::Error, self.start, "");
        State::Done
    }

    /// The next character; an ASCII one (nearly all of a template's actions) without decoding.
    fn peek(&self) -> Option<char> {
        match self.input.as_bytes().get(self.pos) {
            Some(&b) if b.is_ascii() => Some(char::from(b)),
            Some(_) => self.rest().chars().next(),
            None => None,
        }
    }

    /// Moves past the letters, digits and underscores of a name, the ASCII ones byte by byte.
    fn skip_alnum(&mut self) {
        while let Some(&b) = self.input.as_bytes().get(self.pos) {
            if b.is_ascii_alphanumeric() || b == b'_' {
                self.pos += 1;
                continue;
            }
            match self.peek() {
                Some(c) if !c.is_ascii() && is_alnum(c) => self.pos += c.len_utf8(),
                _ => break,
            }
        }
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    fn accept(&mut self, valid: &str) -> bool {
        match self.peek() {
            Some(c) if valid.contains(c) => {
                self.pos += c.len_utf8();
                true
            }
            _ => false,
        }
    }

    fn accept_run(&mut self, valid: &str) {
        while self.accept(valid) {}
    }

    fn at_right_delim(&self) -> (bool, bool) {
        let rest = &self.input.as_bytes()[self.pos..];
        if self.starts_with_trimmed_right_delim(rest) {
            return (true, true);
        }
        (starts_with_delim(rest, self.right), false)
    }

    /// `text` starts with ` -}}`: a trim marker and the right delimiter.
    fn starts_with_trimmed_right_delim(&self, text: &[u8]) -> bool {
        has_right_trim_marker(text) && starts_with_delim(&text[TRIM_MARKER_LEN..], self.right)
    }

    fn at_terminator(&self) -> bool {
        match self.peek() {
            None => true,
            Some(c) if c.is_ascii() && is_space(c as u8) => true,
            Some('.' | ',' | '|' | ':' | ')' | '(') => true,
            _ => starts_with_delim(&self.input.as_bytes()[self.pos..], self.right),
        }
    }

    fn lex_text(&mut self) -> State {
        if let Some(x) = find_delim(self.rest(), self.left) {
            if x > 0 {
                self.pos += x;
                let delim_end = self.pos + self.left.len();
                let trim = if has_left_trim_marker(&self.input[delim_end..]) {
                    right_trim_len(&self.input[self.start..self.pos])
                } else {
                    0
                };
                let text = &self.input[self.start..self.pos - trim];
                let start = self.start;
                self.start = self.pos;
                if !text.is_empty() {
                    self.emit_val(Tok::Text, start, text);
                }
            }
            return State::LeftDelim;
        }
        self.pos = self.input.len();
        if self.pos > self.start {
            self.emit(Tok::Text);
        }
        self.emit(Tok::Eof);
        State::Done
    }

    fn lex_left_delim(&mut self) -> State {
        self.pos += self.left.len();
        let trim = has_left_trim_marker(self.rest());
        let after = if trim { TRIM_MARKER_LEN } else { 0 };
        if self.input[self.pos + after..].starts_with(LEFT_COMMENT) {
            self.pos += after;
            self.start = self.pos;
            return State::Comment;
        }
        self.emit(Tok::LeftDelim);
        self.pos += after;
        self.start = self.pos;
        self.paren_depth = 0;
        State::InsideAction
    }

    fn lex_comment(&mut self) -> State {
        self.pos += LEFT_COMMENT.len();
        let Some(x) = self.rest().find(RIGHT_COMMENT) else {
            return self.error("unclosed comment".into());
        };
        self.pos += x + RIGHT_COMMENT.len();
        let (delim, trim) = self.at_right_delim();
        if !delim {
            return self.error("comment ends before closing delimiter".into());
        }
        if trim {
            self.pos += TRIM_MARKER_LEN;
        }
        self.pos += self.right.len();
        if trim {
            self.pos += left_trim_len(self.rest());
        }
        self.start = self.pos;
        State::Text
    }

    fn lex_right_delim(&mut self) -> State {
        let (_, trim) = self.at_right_delim();
        if trim {
            self.pos += TRIM_MARKER_LEN;
            self.start = self.pos;
        }
        self.pos += self.right.len();
        self.emit(Tok::RightDelim);
        if trim {
            self.pos += left_trim_len(self.rest());
            self.start = self.pos;
        }
        State::Text
    }

    fn lex_inside_action(&mut self) -> State {
        let (delim, _) = self.at_right_delim();
        if delim {
            if self.paren_depth == 0 {
                return State::RightDelim;
            }
            return self.error("unclosed left paren".into());
        }
        let Some(r) = self.next() else {
            return self.error("unclosed action".into());
        };
        match r {
            c if c.is_ascii() && is_space(c as u8) => {
                self.pos -= 1;
                return self.lex_space();
            }
            '=' => self.emit(Tok::Assign),
            ':' => {
                if self.next() != Some('=') {
                    return self.error("expected :=".into());
                }
                self.emit(Tok::Declare);
            }
            '|' => self.emit(Tok::Pipe),
            '"' => return self.lex_quote(),
            '`' => return self.lex_raw_quote(),
            '$' => return self.lex_variable(),
            '\'' => return self.lex_char(),
            '.' if !matches!(self.rest().as_bytes().first(), Some(b'0'..=b'9')) => {
                return self.lex_field_or_variable(Tok::Field);
            }
            '.' | '+' | '-' | '0'..='9' => {
                self.pos -= 1;
                return self.lex_number();
            }
            c if is_alnum(c) => {
                self.pos -= c.len_utf8();
                return self.lex_identifier();
            }
            '(' => {
                self.paren_depth += 1;
                self.emit(Tok::LeftParen);
            }
            ')' => {
                self.paren_depth -= 1;
                if self.paren_depth < 0 {
                    return self.error("unexpected right paren".into());
                }
                self.emit(Tok::RightParen);
            }
            c if c.is_ascii() && !c.is_ascii_control() => self.emit(Tok::Char),
            c => {
                return self.error(format!("unrecognized character in action: {}", sharp_u(c)));
            }
        }
        State::InsideAction
    }

    fn lex_space(&mut self) -> State {
        let mut n = 0;
        while matches!(self.peek(), Some(c) if c.is_ascii() && is_space(c as u8)) {
            self.pos += 1;
            n += 1;
        }
        let before = &self.input.as_bytes()[self.pos - 1..];
        if self.starts_with_trimmed_right_delim(before) {
            self.pos -= 1;
            if n == 1 {
                return State::RightDelim;
            }
        }
        self.emit(Tok::Space);
        State::InsideAction
    }

    fn lex_identifier(&mut self) -> State {
        self.skip_alnum();
        if !self.at_terminator() {
            let c = self.peek().unwrap_or('\0');
            return self.error(format!("bad character {}", sharp_u(c)));
        }
        let word = &self.input[self.start..self.pos];
        let tok = match word {
            "block" => Tok::Block,
            "break" if self.break_ok => Tok::Break,
            "continue" if self.continue_ok => Tok::Continue,
            "define" => Tok::Define,
            "else" => Tok::Else,
            "end" => Tok::End,
            "if" => Tok::If,
            "range" => Tok::Range,
            "nil" => Tok::Nil,
            "template" => Tok::Template,
            "with" => Tok::With,
            "true" | "false" => Tok::Bool,
            _ => Tok::Identifier,
        };
        self.emit(tok);
        State::InsideAction
    }

    fn lex_variable(&mut self) -> State {
        if self.at_terminator() {
            self.emit(Tok::Variable);
            return State::InsideAction;
        }
        self.lex_field_or_variable(Tok::Variable)
    }

    fn lex_field_or_variable(&mut self, tok: Tok) -> State {
        if self.at_terminator() {
            self.emit(if tok == Tok::Variable {
                Tok::Variable
            } else {
                Tok::Dot
            });
            return State::InsideAction;
        }
        self.skip_alnum();
        if !self.at_terminator() {
            let c = self.peek().unwrap_or('\0');
            return self.error(format!("bad character {}", sharp_u(c)));
        }
        self.emit(tok);
        State::InsideAction
    }

    fn lex_char(&mut self) -> State {
        loop {
            match self.next() {
                Some('\\') => match self.next() {
                    None | Some('\n') => {
                        return self.error("unterminated character constant".into());
                    }
                    _ => {}
                },
                None | Some('\n') => return self.error("unterminated character constant".into()),
                Some('\'') => break,
                _ => {}
            }
        }
        self.emit(Tok::CharConstant);
        State::InsideAction
    }

    fn lex_quote(&mut self) -> State {
        loop {
            match self.next() {
                Some('\\') => match self.next() {
                    None | Some('\n') => return self.error("unterminated quoted string".into()),
                    _ => {}
                },
                None | Some('\n') => return self.error("unterminated quoted string".into()),
                Some('"') => break,
                _ => {}
            }
        }
        self.emit(Tok::String);
        State::InsideAction
    }

    fn lex_raw_quote(&mut self) -> State {
        let Some(x) = self.rest().find('`') else {
            return self.error("unterminated raw quoted string".into());
        };
        self.pos += x + 1;
        self.emit(Tok::RawString);
        State::InsideAction
    }

    fn lex_number(&mut self) -> State {
        if !self.scan_number() {
            let text = self.input[self.start..self.pos].to_string();
            return self.error(format!("bad number syntax: {}", crate::gofmt::quote(&text)));
        }
        if matches!(self.peek(), Some('+' | '-')) {
            if !self.scan_number() || !self.input[..self.pos].ends_with('i') {
                let text = self.input[self.start..self.pos].to_string();
                return self.error(format!("bad number syntax: {}", crate::gofmt::quote(&text)));
            }
            self.emit(Tok::Complex);
            return State::InsideAction;
        }
        self.emit(Tok::Number);
        State::InsideAction
    }

    fn scan_number(&mut self) -> bool {
        self.accept("+-");
        let mut digits = "0123456789_";
        if self.accept("0") {
            if self.accept("xX") {
                digits = "0123456789abcdefABCDEF_";
            } else if self.accept("oO") {
                digits = "01234567_";
            } else if self.accept("bB") {
                digits = "01_";
            }
        }
        self.accept_run(digits);
        if self.accept(".") {
            self.accept_run(digits);
        }
        if digits.len() == 11 && self.accept("eE") {
            self.accept("+-");
            self.accept_run("0123456789_");
        }
        if digits.len() == 23 && self.accept("pP") {
            self.accept("+-");
            self.accept_run("0123456789_");
        }
        self.accept("i");
        if let Some(c) = self.peek()
            && is_alnum(c)
        {
            self.pos += c.len_utf8();
            return false;
        }
        true
    }
}
