//! YAML text exactly as Helm's `toYaml` writes it. Helm marshals a value to JSON, reads the
//! JSON back with go-yaml v2 (so integral numbers become ints, map keys are re-sorted in
//! go-yaml's "natural" order) and emits it with go-yaml v2's emitter: block style, sequences
//! under a key not indented, empty collections as `{}`/`[]`, plain scalars folded at spaces
//! past column 80, strings that would read back as another type quoted, multi-line strings as
//! literal blocks. This module reproduces that emitter's decisions for the documents it makes.

use gotemplate::gofmt::format_float;

/// A document after Helm's JSON round trip.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Null,
    Bool(bool),
    /// An integer as decimal text (it may exceed i64 when it came from a uint64).
    Int(String),
    Float(f64),
    Str(String),
    Seq(Vec<Node>),
    /// Keys in the order they are written.
    Map(Vec<(String, Node)>),
}

impl Node {
    /// A float after the JSON round trip: Go's JSON writes it in plain decimal unless very large
    /// or small, and go-yaml reads such text back as an int when it has no fraction.
    pub fn from_float(f: f64) -> Node {
        if !f.is_finite() {
            // Go's json.Marshal refuses NaN and infinities; Helm's toYaml then prints "".
            return Node::Str(String::new());
        }
        let abs = f.abs();
        if f == f.trunc()
            && abs < 1e21
            && let Some(i) = int_text(f)
        {
            return Node::Int(i);
        }
        Node::Float(f)
    }

    /// Sorts map keys at every depth as go-yaml v2 does.
    pub fn sorted(self) -> Node {
        match self {
            Node::Map(mut entries) => {
                entries.sort_by(|(a, _), (b, _)| natural_order(a, b));
                Node::Map(entries.into_iter().map(|(k, v)| (k, v.sorted())).collect())
            }
            Node::Seq(items) => Node::Seq(items.into_iter().map(Node::sorted).collect()),
            other => other,
        }
    }
}

/// The decimal text of an integral float that go-yaml would read back as an int or uint.
fn int_text(f: f64) -> Option<String> {
    if (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&f) {
        return Some(format!("{}", f as i64));
    }
    if (0.0..1.844_674_407_370_955_2e19).contains(&f) {
        return Some(format!("{}", f as u64));
    }
    None
}

/// go-yaml v2's order of string keys: runs of digits compare as numbers, letters after
/// non-letters.
pub fn natural_order(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    if natural_less(a, b) {
        Ordering::Less
    } else if natural_less(b, a) {
        Ordering::Greater
    } else {
        Ordering::Equal
    }
}

fn natural_less(a: &str, b: &str) -> bool {
    // Keys are nearly always ASCII, whose bytes are its characters: no copy to compare them.
    if a.is_ascii() && b.is_ascii() {
        return natural_less_in(a.as_bytes(), b.as_bytes());
    }
    let ar: Vec<char> = a.chars().collect();
    let br: Vec<char> = b.chars().collect();
    natural_less_in(&ar, &br)
}

/// [`natural_less`] over the characters of the two keys.
fn natural_less_in<C: Copy + Ord + Into<char>>(ar: &[C], br: &[C]) -> bool {
    let char_at = |s: &[C], i: usize| -> char { s[i].into() };
    let mut i = 0;
    while i < ar.len() && i < br.len() {
        if ar[i] == br[i] {
            i += 1;
            continue;
        }
        let al = char_at(ar, i).is_alphabetic();
        let bl = char_at(br, i).is_alphabetic();
        if al && bl {
            return ar[i] < br[i];
        }
        if al || bl {
            return bl;
        }
        let (mut an, mut bn): (i64, i64) = (0, 0);
        if char_at(ar, i) == '0' || char_at(br, i) == '0' {
            let mut j = i;
            while j > 0 && char_at(ar, j - 1).is_ascii_digit() {
                j -= 1;
                if char_at(ar, j) != '0' {
                    an = 1;
                    bn = 1;
                    break;
                }
            }
        }
        let mut ai = i;
        while ai < ar.len() && char_at(ar, ai).is_ascii_digit() {
            an = an
                .wrapping_mul(10)
                .wrapping_add(char_at(ar, ai) as i64 - '0' as i64);
            ai += 1;
        }
        let mut bi = i;
        while bi < br.len() && char_at(br, bi).is_ascii_digit() {
            bn = bn
                .wrapping_mul(10)
                .wrapping_add(char_at(br, bi) as i64 - '0' as i64);
            bi += 1;
        }
        if an != bn {
            return an < bn;
        }
        if ai != bi {
            return ai < bi;
        }
        return ar[i] < br[i];
    }
    ar.len() < br.len()
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Style {
    Plain,
    Single,
    Double,
    Literal,
}

/// What go-yaml's scalar analysis allows for a value.
#[derive(Debug, PartialEq)]
struct Analysis {
    multiline: bool,
    flow_plain: bool,
    block_plain: bool,
    single: bool,
    block: bool,
}

fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t'
}

/// libyaml's printable set (go-yaml v2): no tabs, no characters outside the BMP.
fn is_printable(c: char) -> bool {
    let u = c as u32;
    u == 0x0A
        || (0x20..=0x7E).contains(&u)
        || (0xA0..=0xD7FF).contains(&u)
        || ((0xE000..=0xFFFD).contains(&u) && u != 0xFEFF)
}

fn analyze(value: &str) -> Analysis {
    if is_plain_word(value) {
        // What the character walk below finds for such a word, without walking it.
        return Analysis {
            multiline: false,
            flow_plain: true,
            block_plain: true,
            single: true,
            block: true,
        };
    }
    analyze_chars(value)
}

/// Letters, digits and `_./-`, not starting with `-` or `.`: no character go-yaml's analysis
/// treats specially, so every style is open to it. Most scalars charts emit are such words
/// (names, image tags, label values), and walking them char by char was a third of `toYaml`.
fn is_plain_word(value: &str) -> bool {
    let bytes = value.as_bytes();
    bytes
        .first()
        .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'/'))
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'/' | b'-'))
}

fn analyze_chars(value: &str) -> Analysis {
    if value.is_empty() {
        return Analysis {
            multiline: false,
            flow_plain: false,
            block_plain: true,
            single: true,
            block: false,
        };
    }
    let chars: Vec<char> = value.chars().collect();
    let (mut block_indicators, mut flow_indicators) = (false, false);
    let (mut line_breaks, mut special) = (false, false);
    let (mut leading_space, mut leading_break) = (false, false);
    let (mut trailing_space, mut trailing_break) = (false, false);
    let (mut break_space, mut space_break) = (false, false);
    let (mut previous_space, mut previous_break) = (false, false);
    if value.starts_with("---") || value.starts_with("...") {
        block_indicators = true;
        flow_indicators = true;
    }
    let mut preceded_by_whitespace = true;
    for (i, &c) in chars.iter().enumerate() {
        let followed_by_whitespace = i + 1 >= chars.len() || is_blank(chars[i + 1]);
        if i == 0 {
            match c {
                '#' | ',' | '[' | ']' | '{' | '}' | '&' | '*' | '!' | '|' | '>' | '\'' | '"'
                | '%' | '@' | '`' => {
                    flow_indicators = true;
                    block_indicators = true;
                }
                '?' | ':' => {
                    flow_indicators = true;
                    if followed_by_whitespace {
                        block_indicators = true;
                    }
                }
                '-' if followed_by_whitespace => {
                    flow_indicators = true;
                    block_indicators = true;
                }
                _ => {}
            }
        } else {
            match c {
                ',' | '?' | '[' | ']' | '{' | '}' => flow_indicators = true,
                ':' => {
                    flow_indicators = true;
                    if followed_by_whitespace {
                        block_indicators = true;
                    }
                }
                '#' if preceded_by_whitespace => {
                    flow_indicators = true;
                    block_indicators = true;
                }
                _ => {}
            }
        }
        if !is_printable(c) {
            special = true;
        }
        if c == ' ' {
            if i == 0 {
                leading_space = true;
            }
            if i + 1 == chars.len() {
                trailing_space = true;
            }
            if previous_break {
                break_space = true;
            }
            previous_space = true;
            previous_break = false;
        } else if is_break(c) {
            line_breaks = true;
            if i == 0 {
                leading_break = true;
            }
            if i + 1 == chars.len() {
                trailing_break = true;
            }
            if previous_space {
                space_break = true;
            }
            previous_space = false;
            previous_break = true;
        } else {
            previous_space = false;
            previous_break = false;
        }
        preceded_by_whitespace = is_blank(c) || is_break(c);
    }
    let mut a = Analysis {
        multiline: line_breaks,
        flow_plain: true,
        block_plain: true,
        single: true,
        block: true,
    };
    if leading_space || leading_break || trailing_space || trailing_break {
        a.flow_plain = false;
        a.block_plain = false;
    }
    if trailing_space {
        a.block = false;
    }
    if break_space {
        a.flow_plain = false;
        a.block_plain = false;
        a.single = false;
    }
    if space_break || special {
        a.flow_plain = false;
        a.block_plain = false;
        a.single = false;
        a.block = false;
    }
    if line_breaks {
        a.flow_plain = false;
        a.block_plain = false;
    }
    if flow_indicators {
        a.flow_plain = false;
    }
    if block_indicators {
        a.block_plain = false;
    }
    a
}

/// Whether go-yaml v2 would read the plain text back as something other than a string.
fn resolves_to_non_string(s: &str) -> bool {
    const SPECIAL: &[&str] = &[
        "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "true", "True", "TRUE", "false",
        "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF", "", "~", "null", "Null", "NULL",
        ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf",
        "-.Inf", "-.INF", "<<",
    ];
    if SPECIAL.contains(&s) {
        return true;
    }
    let Some(first) = s.chars().next() else {
        return true;
    };
    match first {
        '.' => parses_as_go_float(s),
        '+' | '-' | '0'..='9' => {
            if is_timestamp(s) {
                return true;
            }
            let plain = s.replace('_', "");
            go_parse_int(&plain)
                || yaml_style_float(&plain)
                || binary_int(&plain)
                || is_base60_float(s)
        }
        _ => false,
    }
}

fn parses_as_go_float(s: &str) -> bool {
    // Go's ParseFloat accepts decimal and hex floats, "inf"/"nan" spellings, underscores only
    // between digits with a base prefix; text starting with '.' is a plain decimal here.
    let t = s.trim_start_matches(['+', '-']);
    !t.is_empty()
        && t.chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'))
        && t.parse::<f64>().is_ok()
}

/// Go's strconv.ParseInt(s, 0, 64) or ParseUint: decimal, 0x, 0o, 0b, or a leading-0 octal.
fn go_parse_int(s: &str) -> bool {
    let unsigned = s.strip_prefix(['+', '-']).unwrap_or(s);
    if unsigned.is_empty() {
        return false;
    }
    let lower = unsigned.to_ascii_lowercase();
    let (digits, radix) = if let Some(h) = lower.strip_prefix("0x") {
        (h.to_string(), 16)
    } else if let Some(o) = lower.strip_prefix("0o") {
        (o.to_string(), 8)
    } else if let Some(b) = lower.strip_prefix("0b") {
        (b.to_string(), 2)
    } else if lower.len() > 1 && lower.starts_with('0') {
        (lower[1..].to_string(), 8)
    } else {
        (lower.clone(), 10)
    };
    !digits.is_empty() && u128::from_str_radix(&digits, radix).is_ok_and(|v| v <= u64::MAX as u128)
}

fn binary_int(s: &str) -> bool {
    let rest = s.strip_prefix("-0b").or_else(|| s.strip_prefix("0b"));
    rest.is_some_and(|r| !r.is_empty() && r.chars().all(|c| c == '0' || c == '1'))
}

/// `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`
fn yaml_style_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    if i < b.len() && b[i] == b'.' {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    } else {
        if digits(&mut i) == 0 {
            return false;
        }
        if i < b.len() && b[i] == b'.' {
            i += 1;
            digits(&mut i);
        }
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// YAML 1.1 base-60 floats (`1:20`), which go-yaml quotes for other parsers' sake.
fn is_base60_float(s: &str) -> bool {
    let t = s.strip_prefix(['+', '-']).unwrap_or(s);
    if !s.contains(':') || !t.starts_with(|c: char| c.is_ascii_digit()) {
        return false;
    }
    let (body, fraction) = match t.split_once('.') {
        Some((b, f)) => (b, Some(f)),
        None => (t, None),
    };
    if fraction.is_some_and(|f| !f.chars().all(|c| c.is_ascii_digit() || c == '_')) {
        return false;
    }
    let mut parts = body.split(':');
    let head = parts.next().unwrap_or_default();
    if head.is_empty() || !head.chars().all(|c| c.is_ascii_digit() || c == '_') {
        return false;
    }
    let mut any = false;
    for part in parts {
        any = true;
        let ok = match part.len() {
            1 => part.as_bytes()[0].is_ascii_digit(),
            2 => (b'0'..=b'5').contains(&part.as_bytes()[0]) && part.as_bytes()[1].is_ascii_digit(),
            _ => false,
        };
        if !ok {
            return false;
        }
    }
    any
}

/// go-yaml's timestamp check: `YYYY-M-D` with an optional time, as its formats accept.
fn is_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 8 || !b[..4].iter().all(u8::is_ascii_digit) || b[4] != b'-' {
        return false;
    }
    let rest = &s[5..];
    let (date, time) = match rest.find(['T', 't', ' ']) {
        Some(i) => (&rest[..i], Some((&rest[i..i + 1], &rest[i + 1..]))),
        None => (rest, None),
    };
    let mut parts = date.split('-');
    let (Some(month), Some(day), None) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    let number = |t: &str, max: u32| {
        (1..=2).contains(&t.len()) && t.parse::<u32>().is_ok_and(|v| v >= 1 && v <= max)
    };
    if !number(month, 12) || !number(day, 31) {
        return false;
    }
    match time {
        None => true,
        Some((sep, time)) => {
            let (clock, zone_ok) = if sep == " " {
                (time, true)
            } else {
                match time.find(['Z', '+', '-']) {
                    Some(i) => (&time[..i], valid_zone(&time[i..])),
                    None => return false,
                }
            };
            let (hms, fraction) = match clock.split_once('.') {
                Some((h, f)) => (h, Some(f)),
                None => (clock, None),
            };
            let fields: Vec<&str> = hms.split(':').collect();
            zone_ok
                && fields.len() == 3
                && fields.iter().zip([23u32, 59, 59]).all(|(f, max)| {
                    (1..=2).contains(&f.len()) && f.parse::<u32>().is_ok_and(|v| v <= max)
                })
                && fraction.is_none_or(|f| !f.is_empty() && f.chars().all(|c| c.is_ascii_digit()))
        }
    }
}

fn valid_zone(zone: &str) -> bool {
    if zone == "Z" {
        return true;
    }
    let b = zone.as_bytes();
    b.len() == 6
        && (b[0] == b'+' || b[0] == b'-')
        && b[1].is_ascii_digit()
        && b[2].is_ascii_digit()
        && b[3] == b':'
        && b[4].is_ascii_digit()
        && b[5].is_ascii_digit()
}

const BEST_INDENT: i64 = 2;
const BEST_WIDTH: usize = 80;

/// The emitter's state, as libyaml keeps it.
struct Emitter {
    out: String,
    column: usize,
    whitespace: bool,
    indention: bool,
    indent: i64,
    indents: Vec<i64>,
    /// go-yaml v3 (toYamlPretty) indents sequences under keys and never folds lines.
    v3: bool,
}

#[derive(Clone, Copy, Default)]
struct Context {
    mapping: bool,
    simple_key: bool,
}

impl Emitter {
    fn new(v3: bool) -> Emitter {
        Emitter {
            out: String::new(),
            column: 0,
            whitespace: true,
            indention: true,
            indent: -1,
            indents: Vec::new(),
            v3,
        }
    }

    fn put(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    fn put_break(&mut self) {
        self.out.push('\n');
        self.column = 0;
    }

    fn write_indent(&mut self) {
        let indent = self.indent.max(0) as usize;
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        while self.column < indent {
            self.put(' ');
        }
        self.whitespace = true;
        self.indention = true;
    }

    fn write_indicator(
        &mut self,
        indicator: &str,
        need_whitespace: bool,
        is_whitespace: bool,
        is_indention: bool,
    ) {
        if need_whitespace && !self.whitespace {
            self.put(' ');
        }
        for c in indicator.chars() {
            self.put(c);
        }
        self.whitespace = is_whitespace;
        self.indention = self.indention && is_indention;
    }

    fn increase_indent(&mut self, flow: bool, indentless: bool) {
        self.indents.push(self.indent);
        if self.indent < 0 {
            self.indent = if flow { BEST_INDENT } else { 0 };
        } else if !indentless {
            self.indent += BEST_INDENT;
        }
    }

    fn pop_indent(&mut self) {
        self.indent = self.indents.pop().unwrap_or(-1);
    }

    fn width(&self) -> usize {
        if self.v3 { usize::MAX } else { BEST_WIDTH }
    }

    fn node(&mut self, node: &Node, ctx: Context) {
        match node {
            Node::Map(entries) if entries.is_empty() => self.flow_empty("{", "}"),
            Node::Seq(items) if items.is_empty() => self.flow_empty("[", "]"),
            Node::Map(entries) => self.block_mapping(entries),
            Node::Seq(items) => self.block_sequence(items, ctx),
            Node::Null => self.scalar("null", Style::Plain, ctx),
            Node::Bool(b) => self.scalar(if *b { "true" } else { "false" }, Style::Plain, ctx),
            Node::Int(text) => self.scalar(text, Style::Plain, ctx),
            Node::Float(f) => {
                let text = match format_float(*f, 'g', None).as_str() {
                    "+Inf" => ".inf".to_string(),
                    "-Inf" => "-.inf".to_string(),
                    "NaN" => ".nan".to_string(),
                    other => other.to_string(),
                };
                self.scalar(&text, Style::Plain, ctx)
            }
            Node::Str(s) => {
                let plain_ok = !resolves_to_non_string(s);
                let style = if s.contains('\n') {
                    Style::Literal
                } else if plain_ok {
                    Style::Plain
                } else {
                    Style::Double
                };
                self.scalar(s, style, ctx)
            }
        }
    }

    fn flow_empty(&mut self, open: &str, close: &str) {
        self.write_indicator(open, true, true, false);
        self.increase_indent(true, false);
        self.pop_indent();
        self.write_indicator(close, false, false, false);
    }

    fn block_mapping(&mut self, entries: &[(String, Node)]) {
        self.increase_indent(false, false);
        for (key, value) in entries {
            self.write_indent();
            let analysis = analyze(key);
            let simple = key.len() <= 128 && !analysis.multiline;
            let key_node = Node::Str(key.clone());
            if simple {
                self.node(
                    &key_node,
                    Context {
                        mapping: true,
                        simple_key: true,
                    },
                );
                self.write_indicator(":", false, false, false);
            } else {
                self.write_indicator("?", true, false, true);
                self.node(
                    &key_node,
                    Context {
                        mapping: true,
                        simple_key: false,
                    },
                );
                self.write_indent();
                self.write_indicator(":", true, false, true);
            }
            self.node(
                value,
                Context {
                    mapping: true,
                    simple_key: false,
                },
            );
        }
        self.pop_indent();
    }

    fn block_sequence(&mut self, items: &[Node], ctx: Context) {
        let indentless = !self.v3 && ctx.mapping && !self.indention;
        self.increase_indent(false, indentless);
        for item in items {
            self.write_indent();
            self.write_indicator("-", true, false, true);
            self.node(item, Context::default());
        }
        self.pop_indent();
    }

    fn scalar(&mut self, value: &str, requested: Style, ctx: Context) {
        let a = analyze(value);
        let mut style = requested;
        if ctx.simple_key && a.multiline {
            style = Style::Double;
        }
        if style == Style::Plain && (!a.block_plain || (value.is_empty() && ctx.simple_key)) {
            style = Style::Single;
        }
        if style == Style::Single && !a.single {
            style = Style::Double;
        }
        if style == Style::Literal && (!a.block || ctx.simple_key) {
            style = Style::Double;
        }
        self.increase_indent(true, false);
        let breaks = !ctx.simple_key;
        match style {
            Style::Plain => self.write_plain(value, breaks),
            Style::Single => self.write_single(value, breaks),
            Style::Double => self.write_double(value, breaks),
            Style::Literal => self.write_literal(value),
        }
        self.pop_indent();
    }

    fn write_plain(&mut self, value: &str, allow_breaks: bool) {
        if !self.whitespace {
            self.put(' ');
        }
        if !value.contains(' ') {
            // Only a space can become a line break here: the rest is written as it is.
            self.out.push_str(value);
            self.column += value.chars().count();
            self.whitespace = false;
            self.indention = false;
            return;
        }
        let chars: Vec<char> = value.chars().collect();
        let mut spaces = false;
        for (i, &c) in chars.iter().enumerate() {
            if c == ' ' {
                let next_is_space = chars.get(i + 1) == Some(&' ');
                if allow_breaks && !spaces && self.column > self.width() && !next_is_space {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else {
                self.put(c);
                self.indention = false;
                spaces = false;
            }
        }
        self.whitespace = false;
        self.indention = false;
    }

    fn write_single(&mut self, value: &str, allow_breaks: bool) {
        self.write_indicator("'", true, false, false);
        let chars: Vec<char> = value.chars().collect();
        let mut spaces = false;
        let mut breaks = false;
        for (i, &c) in chars.iter().enumerate() {
            if c == ' ' {
                let next_is_space = chars.get(i + 1) == Some(&' ');
                if allow_breaks
                    && !spaces
                    && self.column > self.width()
                    && i != 0
                    && i != chars.len() - 1
                    && !next_is_space
                {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else if is_break(c) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.put_break();
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                if c == '\'' {
                    self.put('\'');
                }
                self.put(c);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        self.write_indicator("'", false, false, false);
    }

    fn write_double(&mut self, value: &str, allow_breaks: bool) {
        self.write_indicator("\"", true, false, false);
        let chars: Vec<char> = value.chars().collect();
        let mut spaces = false;
        for (i, &c) in chars.iter().enumerate() {
            if !is_printable(c) || c == '\u{feff}' || is_break(c) || c == '"' || c == '\\' {
                self.put('\\');
                let escaped = match c {
                    '\0' => "0".to_string(),
                    '\u{07}' => "a".to_string(),
                    '\u{08}' => "b".to_string(),
                    '\t' => "t".to_string(),
                    '\n' => "n".to_string(),
                    '\u{0b}' => "v".to_string(),
                    '\u{0c}' => "f".to_string(),
                    '\r' => "r".to_string(),
                    '\u{1b}' => "e".to_string(),
                    '"' => "\"".to_string(),
                    '\\' => "\\".to_string(),
                    '\u{85}' => "N".to_string(),
                    '\u{a0}' => "_".to_string(),
                    '\u{2028}' => "L".to_string(),
                    '\u{2029}' => "P".to_string(),
                    c if (c as u32) <= 0xFF => format!("x{:02X}", c as u32),
                    c if (c as u32) <= 0xFFFF => format!("u{:04X}", c as u32),
                    c => format!("U{:08X}", c as u32),
                };
                for e in escaped.chars() {
                    self.put(e);
                }
                spaces = false;
            } else if c == ' ' {
                if allow_breaks
                    && !spaces
                    && self.column > self.width()
                    && i != 0
                    && i != chars.len() - 1
                {
                    self.write_indent();
                    if chars.get(i + 1) == Some(&' ') {
                        self.put('\\');
                    }
                } else {
                    self.put(c);
                }
                spaces = true;
            } else {
                self.put(c);
                spaces = false;
            }
        }
        self.write_indicator("\"", false, false, false);
    }

    fn write_literal(&mut self, value: &str) {
        self.write_indicator("|", true, false, false);
        let chars: Vec<char> = value.chars().collect();
        if chars.first().is_some_and(|&c| c == ' ' || is_break(c)) {
            self.write_indicator(&BEST_INDENT.to_string(), false, false, false);
        }
        let last_is_break = chars.last().is_some_and(|&c| is_break(c));
        if !last_is_break {
            self.write_indicator("-", false, false, false);
        } else if chars.len() == 1 || is_break(chars[chars.len() - 2]) {
            self.write_indicator("+", false, false, false);
        }
        self.put_break();
        self.indention = true;
        self.whitespace = true;
        let mut breaks = true;
        for &c in &chars {
            if is_break(c) {
                self.put_break();
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.put(c);
                self.indention = false;
                breaks = false;
            }
        }
    }

    fn finish(mut self) -> String {
        // The document end writes a final line break.
        self.write_indent();
        self.out
    }
}

/// go-yaml v2's marshalling of a (sorted) document, with its final newline.
pub fn emit(node: &Node) -> String {
    let mut e = Emitter::new(false);
    e.node(node, Context::default());
    e.finish()
}

/// go-yaml v3 with an indent of 2, as Helm's `toYamlPretty`.
pub fn emit_v3(node: &Node) -> String {
    let mut e = Emitter::new(true);
    e.node(node, Context::default());
    e.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> Node {
        Node::Str(x.to_string())
    }

    #[test]
    fn go_float_text() {
        assert_eq!(format_float(1e6, 'g', None), "1e+06");
        assert_eq!(format_float(1.5, 'g', None), "1.5");
        assert_eq!(format_float(0.000001, 'g', None), "1e-06");
        assert_eq!(format_float(123456.0, 'g', None), "123456");
        assert_eq!(format_float(1234567.5, 'g', None), "1.2345675e+06");
        assert_eq!(format_float(0.0001, 'g', None), "0.0001");
        assert_eq!(format_float(1e21, 'g', None), "1e+21");
    }

    #[test]
    fn natural_key_order() {
        let mut keys = vec!["b", "a10", "a2", "B", "1", "_x", "a-1", "a_1"];
        keys.sort_by(|a, b| natural_order(a, b));
        assert_eq!(keys, vec!["_x", "1", "B", "a-1", "a_1", "a2", "a10", "b"]);
    }

    #[test]
    fn ascii_keys_compare_as_their_characters_do() {
        let keys = [
            "a", "b", "a1", "a2", "a10", "a01", "a001", "a0", "0", "00", "01", "1", "10", "2",
            "ab", "aB", "B", "_x", "x_", "a-1", "a.1", "", "z9", "z09", "z90", "1a", "10a", "9a",
        ];
        for a in keys {
            for b in keys {
                let chars = |s: &str| s.chars().collect::<Vec<char>>();
                assert_eq!(
                    natural_less(a, b),
                    natural_less_in(&chars(a), &chars(b)),
                    "{a:?} < {b:?}"
                );
            }
        }
    }

    #[test]
    fn plain_words_are_analysed_as_the_character_walk_finds() {
        for value in [
            "a",
            "nginx",
            "app.kubernetes.io/name",
            "v1.2.3",
            "my_value",
            "/path/to",
            "x-y",
            "a-",
            "a.",
            "0644",
            "123",
            "yes",
            "abc123",
            "-x",
            "--x",
            ".hidden",
            "...",
            "---",
            "a b",
            "a:b",
            "a: b",
            "a#b",
            "a #b",
            "[a]",
            "{a}",
            "a,b",
            "?a",
            "é",
            "a\tb",
            "a\nb",
            "",
            " a",
            "a ",
            "_x",
            "/",
            "1.5e3",
            "@x",
            "a@b",
            "a%b",
            "a*b",
        ] {
            assert_eq!(analyze(value), analyze_chars(value), "{value:?}");
            if is_plain_word(value) {
                assert!(!value.is_empty() && value.is_ascii(), "{value:?}");
            }
        }
        assert!(is_plain_word("app.kubernetes.io/name"));
        assert!(!is_plain_word("-x") && !is_plain_word(".x") && !is_plain_word("a b"));
    }

    #[test]
    fn scalars_are_quoted_only_when_needed() {
        let doc = Node::Map(vec![
            ("colon".into(), s("a: b")),
            ("num".into(), s("123")),
            ("yes".into(), s("yes")),
            ("ts".into(), s("2024-01-02")),
            ("empty".into(), s("")),
            ("tab".into(), s("a\tb")),
            ("trail".into(), s("a ")),
            ("lead".into(), s("-x")),
            ("dash".into(), s("- x")),
            ("multi".into(), s("l1\nl2\n")),
            ("keep".into(), s("a\n\nb\n\n")),
            ("strip".into(), s("x\ny")),
            (
                "list".into(),
                Node::Seq(vec![
                    s("a"),
                    Node::Seq(vec![s("b"), s("c")]),
                    Node::Map(vec![("d".into(), s("e"))]),
                    Node::Map(vec![]),
                    Node::Seq(vec![]),
                ]),
            ),
        ]);
        let text = emit(&doc);
        assert_eq!(
            text,
            "colon: 'a: b'\nnum: \"123\"\n\"yes\": \"yes\"\nts: \"2024-01-02\"\nempty: \"\"\ntab: \"a\\tb\"\ntrail: 'a '\nlead: -x\ndash: '- x'\nmulti: |\n  l1\n  l2\nkeep: |+\n  a\n\n  b\n\nstrip: |-\n  x\n  y\nlist:\n- a\n- - b\n  - c\n- d: e\n- {}\n- []\n"
        );
    }

    #[test]
    fn long_plain_strings_fold_past_column_80() {
        let long = "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam";
        assert_eq!(
            emit(&Node::Map(vec![("long".into(), s(long))])),
            "long: Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor\n  incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam\n"
        );
        assert_eq!(
            emit(&s(long)),
            "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt\n  ut labore et dolore magna aliqua. Ut enim ad minim veniam\n"
        );
    }
}
