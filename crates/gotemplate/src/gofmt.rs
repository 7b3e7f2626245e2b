//! Go's `fmt` printing (`Sprint`, `Sprintln`, `Sprintf` with every verb and flag) and
//! `strconv` quoting, for the values of [`crate::Value`].

use crate::value::Value;

/// Whether Go's `unicode.IsPrint` holds (approximately: controls, format characters and
/// separators other than the ASCII space are not printable).
fn is_print(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    if c.is_control() || c.is_whitespace() {
        return false;
    }
    !matches!(c as u32, 0xAD | 0x200B..=0x200F | 0x2028..=0x202E | 0x2060..=0x206F | 0xFEFF | 0xFFF9..=0xFFFB | 0xE000..=0xF8FF)
}

fn quote_with(s: &str, quote: char, ascii_only: bool) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\x07' => out.push_str("\\a"),
            '\x08' => out.push_str("\\b"),
            '\x0c' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\x0b' => out.push_str("\\v"),
            '\\' => out.push_str("\\\\"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x80 && is_print(c) => out.push(c),
            c if !ascii_only && is_print(c) => out.push(c),
            c if (c as u32) < 0x80 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push(quote);
    out
}

/// Go's `strconv.Quote`.
pub fn quote(s: &str) -> String {
    quote_with(s, '"', false)
}

/// Go's `strconv.QuoteToASCII`.
pub fn quote_ascii(s: &str) -> String {
    quote_with(s, '"', true)
}

/// Go's `strconv.Quote` (`QuoteToASCII` with `ascii_only`) of bytes that may not be UTF-8:
/// each byte of an invalid sequence is written `\xNN`.
pub fn quote_bytes(b: &[u8], ascii_only: bool) -> String {
    let mut out = String::from('"');
    for chunk in b.utf8_chunks() {
        let valid = quote_with(chunk.valid(), '"', ascii_only);
        out.push_str(&valid[1..valid.len() - 1]);
        for x in chunk.invalid() {
            out.push_str(&format!("\\x{x:02x}"));
        }
    }
    out.push('"');
    out
}

/// Go's `strconv.QuoteRune`.
pub fn quote_rune(c: char) -> String {
    quote_with(&c.to_string(), '\'', false)
}

/// Go's `strconv.UnquoteChar` on the start of `s`: the character and the rest.
pub(crate) fn unquote_char(s: &str, quote: char) -> Option<(char, &str)> {
    let mut chars = s.chars();
    let c = chars.next()?;
    if c == quote && (quote == '\'' || quote == '"') {
        return None;
    }
    if c != '\\' {
        return Some((c, chars.as_str()));
    }
    let e = chars.next()?;
    let rest = chars.as_str();
    let simple = match e {
        'a' => Some('\x07'),
        'b' => Some('\x08'),
        'f' => Some('\x0c'),
        'n' => Some('\n'),
        'r' => Some('\r'),
        't' => Some('\t'),
        'v' => Some('\x0b'),
        '\\' => Some('\\'),
        '\'' | '"' if e == quote => Some(e),
        _ => None,
    };
    if let Some(c) = simple {
        return Some((c, rest));
    }
    let hex = |n: usize| -> Option<(char, &str)> {
        let digits = rest.get(..n)?;
        let v = u32::from_str_radix(digits, 16).ok()?;
        Some((char::from_u32(v)?, &rest[n..]))
    };
    match e {
        'x' => hex(2),
        'u' => hex(4),
        'U' => hex(8),
        '0'..='7' => {
            let digits = s.get(1..4)?;
            let v = u32::from_str_radix(digits, 8).ok()?;
            if v > 255 {
                return None;
            }
            Some((char::from_u32(v)?, &s[4..]))
        }
        _ => None,
    }
}

/// Go's `strconv.Unquote` for `"..."`, `` `...` `` and `'.'`.
pub fn unquote(s: &str) -> Option<String> {
    let first = s.chars().next()?;
    if s.len() < 2 || !s.ends_with(first) {
        return None;
    }
    let inner = &s[1..s.len() - 1];
    match first {
        '`' => {
            if inner.contains('`') {
                return None;
            }
            Some(inner.replace('\r', ""))
        }
        '"' if memchr::memchr3(b'\\', b'"', b'\n', inner.as_bytes()).is_none() => {
            // No escape to decode (most of a template's strings): the text is the string, as
            // in Go's own shortcut.
            Some(inner.to_string())
        }
        '"' | '\'' => unquote_escaped(inner, first),
        _ => None,
    }
}

/// The text between the quotes `quote` of a Go string or character literal, its escapes
/// decoded.
fn unquote_escaped(inner: &str, quote: char) -> Option<String> {
    if inner.contains('\n') {
        return None;
    }
    let mut out = String::new();
    let mut rest = inner;
    while !rest.is_empty() {
        let (c, r) = unquote_char(rest, quote)?;
        out.push(c);
        rest = r;
        if quote == '\'' && !rest.is_empty() {
            return None;
        }
    }
    Some(out)
}

/// The decimal digits of a finite float: (digits without leading/trailing zeros, decimal point).
/// `prec`: `None` for the shortest exact representation, else that many significant digits.
fn decimal_digits(f: f64, prec: Option<usize>) -> (Vec<u8>, i32) {
    let s = match prec {
        None => format!("{:e}", f.abs()),
        Some(p) => format!("{:.*e}", p.saturating_sub(1), f.abs()),
    };
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let mut digits: Vec<u8> = mant.bytes().filter(u8::is_ascii_digit).collect();
    while digits.last() == Some(&b'0') {
        digits.pop();
    }
    if digits.is_empty() {
        return (digits, 0);
    }
    (digits, exp + 1)
}

fn fmt_e(digits: &[u8], dp: i32, prec: usize, e: char) -> String {
    let mut out = String::new();
    out.push(digits.first().map(|&d| d as char).unwrap_or('0'));
    if prec > 0 {
        out.push('.');
        for i in 1..=prec {
            out.push(digits.get(i).map(|&d| d as char).unwrap_or('0'));
        }
    }
    out.push(e);
    let exp = if digits.is_empty() { 0 } else { dp - 1 };
    out.push(if exp < 0 { '-' } else { '+' });
    let a = exp.unsigned_abs();
    if a < 10 {
        out.push('0');
    }
    out.push_str(&a.to_string());
    out
}

fn fmt_f(digits: &[u8], dp: i32, prec: usize) -> String {
    let mut out = String::new();
    if dp > 0 {
        for i in 0..dp as usize {
            out.push(digits.get(i).map(|&d| d as char).unwrap_or('0'));
        }
    } else {
        out.push('0');
    }
    if prec > 0 {
        out.push('.');
        for i in 1..=prec as i32 {
            let j = dp + i - 1;
            let c = if j >= 0 {
                digits.get(j as usize).map(|&d| d as char).unwrap_or('0')
            } else {
                '0'
            };
            out.push(c);
        }
    }
    out
}

/// Go's `strconv.FormatFloat(f, fmt, prec, 64)` for 'e', 'E', 'f', 'g', 'G'.
pub fn format_float(f: f64, verb: char, prec: Option<usize>) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        };
    }
    let neg = f.is_sign_negative();
    let body = match verb {
        'e' | 'E' => {
            let (d, dp) = match prec {
                None => decimal_digits(f, None),
                Some(p) => decimal_digits(f, Some(p + 1)),
            };
            let p = prec.unwrap_or(d.len().saturating_sub(1));
            fmt_e(&d, dp, p, verb)
        }
        'f' | 'F' => match prec {
            None => {
                let (d, dp) = decimal_digits(f, None);
                let p = (d.len() as i32 - dp).max(0) as usize;
                fmt_f(&d, dp, p)
            }
            Some(p) => format!("{:.*}", p, f.abs()),
        },
        _ => {
            let shortest = prec.is_none();
            let p = prec.map(|p| p.max(1));
            let (d, dp) = decimal_digits(f, p);
            let nd = d.len() as i32;
            let mut eprec = p.map(|p| p as i32).unwrap_or(nd);
            if eprec > nd && nd >= dp {
                eprec = nd;
            }
            if shortest {
                eprec = 6;
            }
            let exp = dp - 1;
            let e = if verb == 'G' { 'E' } else { 'e' };
            if d.is_empty() {
                "0".to_string()
            } else if exp < -4 || exp >= eprec {
                let mut pp = p.map(|p| p as i32).unwrap_or(nd);
                if pp > nd {
                    pp = nd;
                }
                fmt_e(&d, dp, (pp - 1).max(0) as usize, e)
            } else {
                let mut pp = p.map(|p| p as i32).unwrap_or(nd);
                if pp > dp {
                    pp = nd;
                }
                fmt_f(&d, dp, (pp - dp).max(0) as usize)
            }
        }
    };
    if neg { format!("-{body}") } else { body }
}

/// `%v` of a float64 (Go's `%g` with the shortest representation).
pub fn format_float_v(f: f64) -> String {
    format_float(f, 'g', None)
}

fn write_value(out: &mut String, v: &Value, depth: usize) {
    if depth > 100 {
        out.push_str("...");
        return;
    }
    match v {
        Value::Nil => out.push_str("<nil>"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => out.push_str(&i.to_string()),
        Value::Float(f) => out.push_str(&format_float_v(*f)),
        Value::String(s) => out.push_str(s),
        Value::Bytes(b) => {
            out.push('[');
            for (i, x) in b.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                out.push_str(&x.to_string());
            }
            out.push(']');
        }
        Value::List(l) => {
            out.push('[');
            for (i, x) in l.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                write_value(out, x, depth + 1);
            }
            out.push(']');
        }
        Value::Map(m) => {
            out.push_str("map[");
            for (i, (k, x)) in m.entries().iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                out.push_str(k);
                out.push(':');
                write_value(out, x, depth + 1);
            }
            out.push(']');
        }
        Value::Object(o) => out.push_str(&o.format()),
    }
}

/// `fmt.Sprint(v)` of one value (`%v`).
pub fn sprint_value(v: &Value) -> String {
    let mut s = String::new();
    write_value(&mut s, v, 0);
    s
}

/// `{}` prints the value as Go's `fmt.Print` does (`%v`).
impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&sprint_value(self))
    }
}

/// Go's `fmt.Sprint`: a space between operands when neither is a string.
pub fn sprint(args: &[Value]) -> String {
    let mut out = String::new();
    let mut prev_string = false;
    for (i, a) in args.iter().enumerate() {
        let is_string = matches!(a, Value::String(_));
        if i > 0 && !is_string && !prev_string {
            out.push(' ');
        }
        write_value(&mut out, a, 0);
        prev_string = is_string;
    }
    out
}

/// Go's `fmt.Sprintln`.
pub fn sprintln(args: &[Value]) -> String {
    let mut out = String::new();
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        write_value(&mut out, a, 0);
    }
    out.push('\n');
    out
}

#[derive(Default, Clone, Copy)]
struct Flags {
    plus: bool,
    minus: bool,
    sharp: bool,
    space: bool,
    zero: bool,
    width: Option<usize>,
    prec: Option<usize>,
}

impl Flags {
    fn pad(&self, s: String) -> String {
        self.pad_with(s, false)
    }

    /// Pads to the width; `numeric` zero padding goes after the sign.
    fn pad_with(&self, s: String, numeric: bool) -> String {
        let Some(w) = self.width else { return s };
        let n = s.chars().count();
        if n >= w {
            return s;
        }
        let fill = w - n;
        if self.minus {
            return s + &" ".repeat(fill);
        }
        if self.zero && numeric {
            let (sign, rest) = match s.as_bytes().first() {
                Some(b'+' | b'-' | b' ') => s.split_at(1),
                _ => ("", s.as_str()),
            };
            return format!("{sign}{}{rest}", "0".repeat(fill));
        }
        if self.zero && !numeric {
            return "0".repeat(fill) + &s;
        }
        " ".repeat(fill) + &s
    }
}

fn type_of(v: &Value) -> String {
    v.type_name()
}

fn bad_verb(verb: char, v: &Value) -> String {
    match v {
        Value::Nil => format!("%!{verb}(<nil>)"),
        _ => format!("%!{verb}({}={})", type_of(v), sprint_value(v)),
    }
}

fn fmt_integer(i: i64, verb: char, f: &Flags) -> String {
    let neg = i < 0;
    let u = i.unsigned_abs();
    let mut digits = match verb {
        'b' => format!("{u:b}"),
        'o' | 'O' => format!("{u:o}"),
        'x' => format!("{u:x}"),
        'X' => format!("{u:X}"),
        _ => u.to_string(),
    };
    if let Some(p) = f.prec {
        if p == 0 && u == 0 {
            digits.clear();
        } else if digits.len() < p {
            digits = "0".repeat(p - digits.len()) + &digits;
        }
    }
    let prefix = match verb {
        'b' if f.sharp => "0b",
        'o' if f.sharp && !digits.starts_with('0') => "0",
        'O' => "0o",
        'x' if f.sharp => "0x",
        'X' if f.sharp => "0X",
        _ => "",
    };
    let sign = if neg {
        "-"
    } else if f.plus {
        "+"
    } else if f.space {
        " "
    } else {
        ""
    };
    let body = format!("{prefix}{digits}");
    // Zero padding is ignored with an explicit precision, as in Go.
    let mut fl = *f;
    if f.prec.is_some() {
        fl.zero = false;
    }
    if fl.zero
        && !fl.minus
        && let Some(w) = fl.width
    {
        let n = sign.len() + body.len();
        if n < w {
            return format!("{sign}{prefix}{}{digits}", "0".repeat(w - n));
        }
    }
    fl.pad(format!("{sign}{body}"))
}

fn fmt_float_verb(x: f64, verb: char, f: &Flags) -> String {
    let (v, prec) = match verb {
        'v' => ('g', f.prec),
        'f' | 'F' | 'e' | 'E' => (verb, Some(f.prec.unwrap_or(6))),
        _ => (verb, f.prec),
    };
    let mut s = format_float(x, if v == 'F' { 'f' } else { v }, prec);
    if f.sharp && (v == 'g' || v == 'G') && !x.is_infinite() && !x.is_nan() {
        // %#g keeps trailing zeros up to the precision and always has a decimal point.
        let p = prec.unwrap_or(6).max(1);
        let (mant, exp) = match s.find(['e', 'E']) {
            Some(i) => (s[..i].to_string(), s[i..].to_string()),
            None => (s.clone(), String::new()),
        };
        let digits = mant.chars().filter(|c| c.is_ascii_digit()).count();
        let significant = mant
            .trim_start_matches('-')
            .trim_start_matches(['0', '.'])
            .chars()
            .filter(|c| c.is_ascii_digit())
            .count();
        let mut m = mant.clone();
        if !m.contains('.') {
            m.push('.');
        }
        let have = if significant == 0 {
            digits
        } else {
            significant
        };
        if have < p {
            m.push_str(&"0".repeat(p - have));
        }
        s = m + &exp;
    } else if f.sharp && !s.contains('.') && !x.is_infinite() && !x.is_nan() {
        match s.find(['e', 'E']) {
            Some(i) => s.insert(i, '.'),
            None => s.push('.'),
        }
    }
    if f.plus && !s.starts_with('-') && !s.starts_with('+') {
        s.insert(0, '+');
    } else if f.space && !s.starts_with('-') && !s.starts_with('+') {
        s.insert(0, ' ');
    }
    if x.is_infinite() || x.is_nan() {
        if x.is_infinite() && x > 0.0 && !f.plus {
            // Go prints +Inf only with the plus flag; otherwise "+Inf" for %v and others alike.
            if f.space {
                s = " Inf".into();
            }
        }
        let mut fl = *f;
        fl.zero = false;
        return fl.pad(s);
    }
    f.pad_with(s, true)
}

fn fmt_string(s: &str, verb: char, f: &Flags) -> String {
    let s: String = match f.prec {
        Some(p) if verb != 'x' && verb != 'X' => s.chars().take(p).collect(),
        Some(p) => s.bytes().take(p).map(|b| b as char).collect(),
        None => s.to_string(),
    };
    match verb {
        'q' => {
            if f.sharp && !s.contains('`') && s.chars().all(|c| c == '\t' || is_print(c)) {
                f.pad(format!("`{s}`"))
            } else if f.plus {
                f.pad(quote_ascii(&s))
            } else {
                f.pad(quote(&s))
            }
        }
        'x' | 'X' => fmt_hex(s.as_bytes(), verb, f),
        _ => f.pad(s),
    }
}

/// `%x` and `%X` of a string's or a `[]byte`'s bytes (the precision is already applied).
fn fmt_hex(bytes: &[u8], verb: char, f: &Flags) -> String {
    let mut out = String::new();
    for (i, b) in bytes.iter().enumerate() {
        if f.space && i > 0 {
            out.push(' ');
        }
        if f.sharp && (f.space || i == 0) {
            out.push_str(if verb == 'x' { "0x" } else { "0X" });
        }
        if verb == 'x' {
            out.push_str(&format!("{b:02x}"));
        } else {
            out.push_str(&format!("{b:02X}"));
        }
    }
    f.pad(out)
}

/// Go's `fmtBytes`: `%s`, `%q`, `%x` and `%X` print a `[]byte` as text; other verbs print its
/// elements, each a `uint8`, between brackets.
fn fmt_bytes(out: &mut String, b: &[u8], verb: char, f: &Flags) {
    match verb {
        // Text that is not UTF-8 cannot be written as it is; `%q` escapes it as Go does.
        'q' if !f.sharp && std::str::from_utf8(b).is_err() => {
            out.push_str(&f.pad(quote_bytes(b, f.plus)))
        }
        's' | 'q' => out.push_str(&fmt_string(&String::from_utf8_lossy(b), verb, f)),
        'x' | 'X' => {
            let b = match f.prec {
                Some(p) => &b[..p.min(b.len())],
                None => b,
            };
            out.push_str(&fmt_hex(b, verb, f));
        }
        _ => {
            out.push('[');
            for (i, &x) in b.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                match verb {
                    'v' | 'd' => out.push_str(&fmt_integer(i64::from(x), 'd', f)),
                    'b' | 'o' | 'O' | 'c' | 'U' => {
                        fmt_value(out, &Value::Int(i64::from(x)), verb, f, 0)
                    }
                    _ => out.push_str(&format!("%!{verb}(uint8={x})")),
                }
            }
            out.push(']');
        }
    }
}

fn fmt_value(out: &mut String, v: &Value, verb: char, f: &Flags, depth: usize) {
    if depth > 100 {
        out.push_str("...");
        return;
    }
    match v {
        Value::Nil => {
            if verb == 'v' {
                out.push_str(&f.pad("<nil>".into()));
            } else {
                out.push_str(&bad_verb(verb, v));
            }
        }
        Value::Bool(b) => match verb {
            't' | 'v' => out.push_str(&f.pad(b.to_string())),
            _ => out.push_str(&bad_verb(verb, v)),
        },
        Value::Int(i) => match verb {
            'v' | 'd' => out.push_str(&fmt_integer(*i, 'd', f)),
            'b' | 'o' | 'O' | 'x' | 'X' => out.push_str(&fmt_integer(*i, verb, f)),
            'c' => out.push_str(&f.pad(char_of(*i).to_string())),
            'q' => out.push_str(&f.pad(quote_rune(char_of(*i)))),
            'U' => {
                let c = char_of(*i);
                let mut s = format!("U+{:04X}", *i);
                if f.sharp && is_print(c) {
                    s.push_str(&format!(" '{c}'"));
                }
                out.push_str(&f.pad(s));
            }
            'e' | 'E' | 'f' | 'F' | 'g' | 'G' => out.push_str(&bad_verb(verb, v)),
            _ => out.push_str(&bad_verb(verb, v)),
        },
        Value::Float(x) => match verb {
            'v' | 'e' | 'E' | 'f' | 'F' | 'g' | 'G' => {
                out.push_str(&fmt_float_verb(*x, verb, f));
            }
            _ => out.push_str(&bad_verb(verb, v)),
        },
        Value::String(s) => match verb {
            'v' | 's' | 'q' | 'x' | 'X' => out.push_str(&fmt_string(s, verb, f)),
            _ => out.push_str(&bad_verb(verb, v)),
        },
        Value::Bytes(b) => fmt_bytes(out, b, verb, f),
        Value::List(l) => {
            out.push('[');
            for (i, x) in l.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                if x.is_nil() {
                    out.push_str("<nil>");
                } else {
                    fmt_value(out, x, verb, f, depth + 1);
                }
            }
            out.push(']');
        }
        Value::Map(m) => {
            out.push_str("map[");
            for (i, (k, x)) in m.entries().iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                fmt_value(out, &Value::String(k.clone()), verb, f, depth + 1);
                out.push(':');
                if x.is_nil() {
                    out.push_str("<nil>");
                } else {
                    fmt_value(out, x, verb, f, depth + 1);
                }
            }
            out.push(']');
        }
        Value::Object(o) => match verb {
            'v' | 's' => out.push_str(&f.pad(o.format())),
            _ => out.push_str(&bad_verb(verb, v)),
        },
    }
}

fn char_of(i: i64) -> char {
    u32::try_from(i)
        .ok()
        .and_then(char::from_u32)
        .unwrap_or('\u{FFFD}')
}

/// Go's `fmt.Sprintf`.
pub fn sprintf(format: &str, args: &[Value]) -> String {
    let mut out = String::new();
    let b = format.as_bytes();
    let mut i = 0;
    let mut argn = 0usize;
    let mut reordered = false;
    let mut good_argnum = true;
    while i < b.len() {
        let start = i;
        while i < b.len() && b[i] != b'%' {
            i += 1;
        }
        out.push_str(&format[start..i]);
        if i >= b.len() {
            break;
        }
        i += 1; // the '%'
        let mut f = Flags::default();
        while i < b.len() {
            match b[i] {
                b'#' => f.sharp = true,
                b'0' => f.zero = true,
                b'+' => f.plus = true,
                b'-' => f.minus = true,
                b' ' => f.space = true,
                _ => break,
            }
            i += 1;
        }
        // Argument index before the width.
        let (n, ni, ok, found) = arg_number(format, i, argn, args.len());
        if found {
            reordered = true;
            good_argnum = ok;
        }
        argn = n;
        i = ni;
        if i < b.len() && b[i] == b'*' {
            i += 1;
            match args.get(argn) {
                Some(Value::Int(w)) if w.unsigned_abs() <= 1_000_000 => {
                    let w = *w;
                    if w < 0 {
                        f.minus = true;
                    }
                    f.width = Some(w.unsigned_abs() as usize);
                }
                _ => out.push_str("%!(BADWIDTH)"),
            }
            argn += 1;
        } else {
            match parse_num(b, i) {
                Some((n, ni)) => {
                    if ni > i {
                        f.width = Some(n);
                    }
                    i = ni;
                }
                None => {
                    out.push_str("%!(NOVERB)");
                    break;
                }
            }
        }
        if i < b.len() && b[i] == b'.' {
            i += 1;
            let (n, ni, ok, found) = arg_number(format, i, argn, args.len());
            if found {
                reordered = true;
                good_argnum = ok;
            }
            argn = n;
            i = ni;
            if i < b.len() && b[i] == b'*' {
                i += 1;
                match args.get(argn) {
                    Some(Value::Int(p)) if *p > 1_000_000 => out.push_str("%!(BADPREC)"),
                    Some(Value::Int(p)) if *p >= 0 => f.prec = Some(*p as usize),
                    Some(Value::Int(_)) => f.prec = None,
                    _ => out.push_str("%!(BADPREC)"),
                }
                argn += 1;
            } else {
                match parse_num(b, i) {
                    Some((n, ni)) => {
                        f.prec = Some(n);
                        i = ni;
                    }
                    None => {
                        out.push_str("%!(NOVERB)");
                        break;
                    }
                }
            }
        }
        if !found_after_star(format, i) {
            let (n, ni, ok, found) = arg_number(format, i, argn, args.len());
            if found {
                reordered = true;
                good_argnum = ok;
            }
            argn = n;
            i = ni;
        }
        if i >= b.len() {
            out.push_str("%!(NOVERB)");
            break;
        }
        let verb = format[i..].chars().next().unwrap_or('%');
        i += verb.len_utf8();
        if verb == '%' {
            out.push('%');
            continue;
        }
        if !good_argnum {
            out.push_str(&format!("%!{verb}(BADINDEX)"));
            continue;
        }
        let Some(arg) = args.get(argn) else {
            out.push_str(&format!("%!{verb}(MISSING)"));
            continue;
        };
        argn += 1;
        if f.minus {
            f.zero = false;
        }
        match verb {
            'T' => out.push_str(&f.pad(type_of(arg))),
            'v' if f.sharp => out.push_str(&go_syntax(arg)),
            'v' if f.plus => fmt_value(&mut out, arg, 'v', &Flags { plus: false, ..f }, 0),
            _ => fmt_value(&mut out, arg, verb, &f, 0),
        }
    }
    if !reordered && argn < args.len() {
        out.push_str("%!(EXTRA ");
        for (k, a) in args[argn..].iter().enumerate() {
            if k > 0 {
                out.push_str(", ");
            }
            match a {
                Value::Nil => out.push_str("<nil>"),
                _ => out.push_str(&format!("{}={}", type_of(a), sprint_value(a))),
            }
        }
        out.push(')');
    }
    out
}

/// Go's `parsenum`: the number at `i` and the position after it; `None` when it grows past a
/// million before its last digit (Go then stops with `%!(NOVERB)`), so that a width or
/// precision can never ask for gigabytes of padding.
fn parse_num(b: &[u8], mut i: usize) -> Option<(usize, usize)> {
    let mut n: usize = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        if n > 1_000_000 {
            return None;
        }
        n = n * 10 + usize::from(b[i] - b'0');
        i += 1;
    }
    Some((n, i))
}

fn found_after_star(_format: &str, _i: usize) -> bool {
    false
}

/// Parses `[n]` at `i`: (new arg index, new position, index ok, found).
fn arg_number(format: &str, i: usize, argn: usize, nargs: usize) -> (usize, usize, bool, bool) {
    let b = format.as_bytes();
    if i >= b.len() || b[i] != b'[' {
        return (argn, i, true, false);
    }
    let Some(close) = format[i..].find(']') else {
        return (argn, i + 1, false, true);
    };
    match format[i + 1..i + close].parse::<usize>() {
        Ok(n) if n >= 1 && n <= nargs => (n - 1, i + close + 1, true, true),
        _ => (argn, i + close + 1, false, true),
    }
}

/// `%#v`: Go syntax of the value.
fn go_syntax(v: &Value) -> String {
    match v {
        Value::Nil => "<nil>".into(),
        Value::String(s) => quote(s),
        Value::Float(f) => {
            let s = format_float_v(*f);
            if s.contains(['.', 'e', 'I', 'N']) {
                s
            } else {
                s + ".0"
            }
        }
        Value::Bytes(b) => format!(
            "[]byte{{{}}}",
            b.iter()
                .map(|x| format!("{x:#x}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Value::List(l) => format!(
            "[]interface {{}}{{{}}}",
            l.iter().map(go_syntax).collect::<Vec<_>>().join(", ")
        ),
        Value::Map(m) => format!(
            "map[string]interface {{}}{{{}}}",
            m.entries()
                .iter()
                .map(|(k, v)| format!("{}:{}", quote(k), go_syntax(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        other => sprint_value(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unquote_reads_go_literals() {
        assert_eq!(unquote(r#""a.b-c""#).as_deref(), Some("a.b-c"));
        assert_eq!(unquote(r#""""#).as_deref(), Some(""));
        assert_eq!(unquote(r#""été ✓""#).as_deref(), Some("été ✓"));
        assert_eq!(unquote(r#""a\tb\"c""#).as_deref(), Some("a\tb\"c"));
        assert_eq!(unquote(r#""\u00e9""#).as_deref(), Some("é"));
        assert_eq!(unquote("`a\\n\r`").as_deref(), Some("a\\n"));
        assert_eq!(unquote("'x'").as_deref(), Some("x"));
        for invalid in [
            r#""a"b""#, "\"a\nb\"", r#""a\""#, r#""\q""#, "'xy'", "\"", "`a",
        ] {
            assert_eq!(unquote(invalid), None, "{invalid}");
        }
    }

    #[test]
    fn strings_without_escapes_read_as_their_escapes_would() {
        for inner in [
            "",
            "a",
            "app.kubernetes.io/name",
            "été ✓",
            "{{ x }}",
            "a'b",
            "tab\there",
        ] {
            let quoted = format!("\"{inner}\"");
            assert_eq!(unquote(&quoted), unquote_escaped(inner, '"'), "{quoted}");
        }
    }
}
