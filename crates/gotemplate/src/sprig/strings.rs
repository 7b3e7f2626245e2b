//! Sprig's string functions.

use super::conv::{str_list, strslice, strval};
use super::{fixed, panic_err, var};
use crate::error::Error;
use crate::funcs::{Functions, Type};
use crate::gofmt;
use crate::value::{Map, Value};

use Type::{Any, Int, String as Str};

fn s(a: &Value) -> &str {
    a.as_str().unwrap_or("")
}

fn i(a: &Value) -> i64 {
    match a {
        Value::Int(i) => *i,
        _ => 0,
    }
}

fn ok(v: impl Into<Value>) -> Result<Value, Error> {
    Ok(v.into())
}

/// Go's byte slicing of a string; the bytes may split a character (Go keeps them raw; a
/// Rust string cannot, so a split character becomes U+FFFD).
fn byte_slice(s: &str, start: usize, end: usize) -> String {
    String::from_utf8_lossy(&s.as_bytes()[start..end]).into_owned()
}

fn go_repeat(s: &str, n: i64) -> Result<String, Error> {
    if n < 0 {
        return Err(panic_err("strings: negative Repeat count"));
    }
    if (s.len() as u128) * (n as u128) > (64u128 << 20) {
        return Err(Error::limit(format!(
            "repeat: {} bytes repeated {n} times is over the output limit",
            s.len()
        )));
    }
    Ok(s.repeat(n as usize))
}

/// Go's `strings.Title`: upper-cases the first letter of each word.
fn title(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut prev_sep = true;
    for c in s.chars() {
        if prev_sep {
            out.extend(c.to_uppercase());
        } else {
            out.push(c);
        }
        prev_sep = is_separator(c);
    }
    out
}

fn is_separator(c: char) -> bool {
    if c.is_ascii() {
        return !(c.is_ascii_alphanumeric() || c == '_');
    }
    if c.is_alphabetic() || c.is_numeric() {
        return false;
    }
    c.is_whitespace()
}

/// goutils `Uncapitalize`: lower-cases the first letter of each space-separated word.
fn untitle(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut prev_space = true;
    for c in s.chars() {
        if prev_space {
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
        prev_space = c.is_whitespace();
    }
    out
}

fn initials(s: &str) -> String {
    let mut out = String::new();
    let mut prev_space = true;
    for c in s.chars() {
        if prev_space && !c.is_whitespace() {
            out.push(c);
        }
        prev_space = c.is_whitespace();
    }
    out
}

fn swapcase(s: &str) -> String {
    s.chars()
        .flat_map(|c| {
            if c.is_uppercase() {
                c.to_lowercase().collect::<Vec<_>>()
            } else if c.is_lowercase() {
                c.to_uppercase().collect::<Vec<_>>()
            } else {
                vec![c]
            }
        })
        .collect()
}

/// goutils `WrapCustom`.
fn wrap_custom(s: &str, wrap_len: i64, newline: &str, wrap_long: bool) -> String {
    if s.is_empty() {
        return String::new();
    }
    let newline = if newline.is_empty() { "\n" } else { newline };
    let wrap = wrap_len.max(1) as usize;
    let b = s.as_bytes();
    let len = b.len();
    let mut offset = 0usize;
    let mut out: Vec<u8> = Vec::new();
    while len - offset > wrap {
        if b[offset] == b' ' {
            offset += 1;
            continue;
        }
        let end = (wrap + offset + 1).min(len);
        let space = b[offset..end].iter().rposition(|&c| c == b' ');
        if let Some(sp) = space {
            let at = sp + offset;
            out.extend_from_slice(&b[offset..at]);
            out.extend_from_slice(newline.as_bytes());
            offset = at + 1;
        } else if wrap_long {
            let end = wrap + offset;
            out.extend_from_slice(&b[offset..end]);
            out.extend_from_slice(newline.as_bytes());
            offset += wrap;
        } else {
            let end = wrap + offset;
            match b[end..].iter().position(|&c| c == b' ') {
                None => {
                    out.extend_from_slice(&b[offset..]);
                    offset = len;
                }
                Some(idx) => {
                    let at = idx + end;
                    out.extend_from_slice(&b[offset..at]);
                    out.extend_from_slice(newline.as_bytes());
                    offset = at + 1;
                }
            }
        }
    }
    out.extend_from_slice(&b[offset..]);
    String::from_utf8_lossy(&out).into_owned()
}

/// goutils `AbbreviateFull`.
fn abbreviate_full(s: &str, offset: i64, max: i64) -> String {
    if s.is_empty() || max < 4 {
        return s.to_string();
    }
    let len = s.len() as i64;
    if len <= max {
        return s.to_string();
    }
    let mut offset = offset.min(len);
    if len - offset < max - 3 {
        offset = len - (max - 3);
    }
    if offset <= 4 {
        return byte_slice(s, 0, (max - 3) as usize) + "...";
    }
    if max < 7 {
        return s.to_string();
    }
    if offset + max - 3 < len {
        let rest = byte_slice(s, offset as usize, len as usize);
        return "...".to_string() + &abbreviate_full(&rest, 0, max - 3);
    }
    "...".to_string() + &byte_slice(s, (len - (max - 3)) as usize, len as usize)
}

/// xstrings' case conversion: words split at case changes, digits and separators.
fn split_words(s: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    let mut cur = String::new();
    let chars: Vec<char> = s.chars().collect();
    for (k, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            continue;
        }
        if c.is_uppercase() && !cur.is_empty() {
            let prev = chars[k - 1];
            let next_lower = chars.get(k + 1).is_some_and(|n| n.is_lowercase());
            if prev.is_lowercase() || prev.is_numeric() || (prev.is_uppercase() && next_lower) {
                words.push(std::mem::take(&mut cur));
            }
        }
        cur.push(c);
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words
}

fn snake_or_kebab(s: &str, sep: &str) -> String {
    split_words(s)
        .iter()
        .map(|w| w.to_lowercase())
        .collect::<Vec<_>>()
        .join(sep)
}

/// xstrings `ToPascalCase` (Sprig's `camelcase`).
fn pascal(s: &str) -> String {
    let mut out = String::new();
    for part in s.split(['_', '-', ' ', '.']) {
        let mut cs = part.chars();
        if let Some(f) = cs.next() {
            out.extend(f.to_uppercase());
            out.push_str(cs.as_str());
        }
    }
    out
}

fn split_map(parts: Vec<&str>) -> Value {
    let m: Map = parts
        .into_iter()
        .enumerate()
        .map(|(k, p)| (format!("_{k}"), Value::from(p)))
        .collect();
    Value::Map(m)
}

/// Go's `strings.Split`: an empty separator splits into characters.
pub(crate) fn go_split<'a>(s: &'a str, sep: &str) -> Vec<&'a str> {
    if sep.is_empty() {
        return s
            .char_indices()
            .map(|(k, c)| &s[k..k + c.len_utf8()])
            .collect();
    }
    s.split(sep).collect()
}

fn go_splitn<'a>(s: &'a str, sep: &str, n: i64) -> Vec<&'a str> {
    if n == 0 {
        return Vec::new();
    }
    if n < 0 {
        return go_split(s, sep);
    }
    if sep.is_empty() {
        let mut v = go_split(s, sep);
        if v.len() > n as usize {
            let cut: usize = v[..n as usize - 1].iter().map(|p| p.len()).sum();
            v.truncate(n as usize - 1);
            v.push(&s[cut..]);
        }
        return v;
    }
    s.splitn(n as usize, sep).collect()
}

/// Go's `strings.Replace(s, old, new, -1)`: an empty `old` inserts at every character.
fn go_replace(s: &str, old: &str, new: &str) -> String {
    if old.is_empty() {
        let mut out = String::from(new);
        for c in s.chars() {
            out.push(c);
            out.push_str(new);
        }
        return out;
    }
    s.replace(old, new)
}

fn trunc(c: i64, s: &str) -> String {
    let len = s.len() as i64;
    if c < 0 && len + c > 0 {
        return byte_slice(s, (len + c) as usize, len as usize);
    }
    if c >= 0 && len > c {
        return byte_slice(s, 0, c as usize);
    }
    s.to_string()
}

fn substr(start: i64, end: i64, s: &str) -> Result<String, Error> {
    let len = s.len() as i64;
    if start < 0 {
        if end < 0 || end > len {
            return Err(panic_err(format!(
                "runtime error: slice bounds out of range [:{end}] with length {len}"
            )));
        }
        return Ok(byte_slice(s, 0, end as usize));
    }
    if end < 0 || end > len {
        if start > len {
            return Err(panic_err(format!(
                "runtime error: slice bounds out of range [{start}:{len}]"
            )));
        }
        return Ok(byte_slice(s, start as usize, len as usize));
    }
    if start > end {
        return Err(panic_err(format!(
            "runtime error: slice bounds out of range [{start}:{end}]"
        )));
    }
    Ok(byte_slice(s, start as usize, end as usize))
}

fn seq(params: &[Value]) -> String {
    let p: Vec<i64> = params.iter().map(i).collect();
    let (start, step, end) = match p.as_slice() {
        [] => return String::new(),
        [end] => (1, 1, *end),
        [start, end] => (*start, if end >= start { 1 } else { -1 }, *end),
        [start, step, end, ..] => (*start, *step, *end),
    };
    let mut out = Vec::new();
    if step == 0 {
        return String::new();
    }
    if end >= start && step > 0 {
        let mut x = start;
        while x <= end && out.len() < 10_000_000 {
            out.push(x.to_string());
            x += step;
        }
    } else if end < start && step < 0 {
        let mut x = start;
        while x >= end && out.len() < 10_000_000 {
            out.push(x.to_string());
            x += step;
        }
    }
    out.join(" ")
}

pub(super) fn register(f: &mut Functions) {
    fixed(f, "upper", &[Str], |_, a| ok(s(&a[0]).to_uppercase()));
    fixed(f, "lower", &[Str], |_, a| ok(s(&a[0]).to_lowercase()));
    fixed(f, "title", &[Str], |_, a| ok(title(s(&a[0]))));
    fixed(f, "untitle", &[Str], |_, a| ok(untitle(s(&a[0]))));
    fixed(f, "trim", &[Str], |_, a| {
        ok(s(&a[0]).trim_matches(char::is_whitespace))
    });
    fixed(f, "trimAll", &[Str, Str], |_, a| {
        let cut: Vec<char> = s(&a[0]).chars().collect();
        ok(s(&a[1]).trim_matches(cut.as_slice()))
    });
    fixed(f, "trimall", &[Str, Str], |_, a| {
        let cut: Vec<char> = s(&a[0]).chars().collect();
        ok(s(&a[1]).trim_matches(cut.as_slice()))
    });
    fixed(f, "trimSuffix", &[Str, Str], |_, a| {
        ok(s(&a[1]).strip_suffix(s(&a[0])).unwrap_or(s(&a[1])))
    });
    fixed(f, "trimPrefix", &[Str, Str], |_, a| {
        ok(s(&a[1]).strip_prefix(s(&a[0])).unwrap_or(s(&a[1])))
    });
    fixed(f, "nospace", &[Str], |_, a| {
        ok(s(&a[0])
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>())
    });
    fixed(f, "initials", &[Str], |_, a| ok(initials(s(&a[0]))));
    fixed(f, "swapcase", &[Str], |_, a| ok(swapcase(s(&a[0]))));
    fixed(f, "snakecase", &[Str], |_, a| {
        ok(snake_or_kebab(s(&a[0]), "_"))
    });
    fixed(f, "kebabcase", &[Str], |_, a| {
        ok(snake_or_kebab(s(&a[0]), "-"))
    });
    fixed(f, "camelcase", &[Str], |_, a| ok(pascal(s(&a[0]))));
    fixed(f, "substr", &[Int, Int, Str], |_, a| {
        substr(i(&a[0]), i(&a[1]), s(&a[2])).map(Value::from)
    });
    fixed(f, "trunc", &[Int, Str], |_, a| {
        ok(trunc(i(&a[0]), s(&a[1])))
    });
    fixed(f, "abbrev", &[Int, Str], |_, a| {
        let w = i(&a[0]);
        if w < 4 {
            return ok(s(&a[1]));
        }
        ok(abbreviate_full(s(&a[1]), 0, w))
    });
    fixed(f, "abbrevboth", &[Int, Int, Str], |_, a| {
        let (l, r) = (i(&a[0]), i(&a[1]));
        if r < 4 || (l > 0 && r < 7) {
            return ok(s(&a[2]));
        }
        ok(abbreviate_full(s(&a[2]), l, r))
    });
    fixed(f, "repeat", &[Int, Str], |_, a| {
        go_repeat(s(&a[1]), i(&a[0])).map(Value::from)
    });
    fixed(f, "wrap", &[Int, Str], |_, a| {
        ok(wrap_custom(s(&a[1]), i(&a[0]), "", false))
    });
    fixed(f, "wrapWith", &[Int, Str, Str], |_, a| {
        ok(wrap_custom(s(&a[2]), i(&a[0]), s(&a[1]), true))
    });
    fixed(f, "contains", &[Str, Str], |_, a| {
        ok(s(&a[1]).contains(s(&a[0])))
    });
    fixed(f, "hasPrefix", &[Str, Str], |_, a| {
        ok(s(&a[1]).starts_with(s(&a[0])))
    });
    fixed(f, "hasSuffix", &[Str, Str], |_, a| {
        ok(s(&a[1]).ends_with(s(&a[0])))
    });
    var(f, "quote", &[], Any, |_, a| {
        let parts: Vec<String> = a
            .iter()
            .filter(|v| !v.is_nil())
            .map(|v| match v {
                // strval's text of a []byte need not be UTF-8; Go escapes its bytes.
                Value::Bytes(b) => gofmt::quote_bytes(b, false),
                v => gofmt::quote(&strval(v)),
            })
            .collect();
        ok(parts.join(" "))
    });
    var(f, "squote", &[], Any, |_, a| {
        let parts: Vec<String> = a
            .iter()
            .filter(|v| !v.is_nil())
            .map(|v| format!("'{}'", gofmt::sprint_value(v)))
            .collect();
        ok(parts.join(" "))
    });
    var(f, "cat", &[], Any, |_, a| {
        let parts: Vec<String> = a
            .iter()
            .filter(|v| !v.is_nil())
            .map(gofmt::sprint_value)
            .collect();
        ok(parts.join(" "))
    });
    fixed(f, "indent", &[Int, Str], |_, a| {
        let pad = go_repeat(" ", i(&a[0]))?;
        ok(format!(
            "{pad}{}",
            s(&a[1]).replace('\n', &format!("\n{pad}"))
        ))
    });
    fixed(f, "nindent", &[Int, Str], |_, a| {
        let pad = go_repeat(" ", i(&a[0]))?;
        ok(format!(
            "\n{pad}{}",
            s(&a[1]).replace('\n', &format!("\n{pad}"))
        ))
    });
    fixed(f, "replace", &[Str, Str, Str], |_, a| {
        ok(go_replace(s(&a[2]), s(&a[0]), s(&a[1])))
    });
    fixed(f, "plural", &[Str, Str, Int], |_, a| {
        ok(if i(&a[2]) == 1 { s(&a[0]) } else { s(&a[1]) })
    });
    fixed(f, "toString", &[Any], |_, a| ok(strval(&a[0])));
    fixed(f, "split", &[Str, Str], |_, a| {
        Ok(split_map(go_split(s(&a[1]), s(&a[0]))))
    });
    fixed(f, "splitList", &[Str, Str], |_, a| {
        Ok(str_list(
            go_split(s(&a[1]), s(&a[0]))
                .into_iter()
                .map(str::to_string)
                .collect(),
        ))
    });
    fixed(f, "splitn", &[Str, Int, Str], |_, a| {
        Ok(split_map(go_splitn(s(&a[2]), s(&a[0]), i(&a[1]))))
    });
    fixed(f, "toStrings", &[Any], |_, a| Ok(str_list(strslice(&a[0]))));
    fixed(f, "join", &[Str, Any], |_, a| {
        ok(strslice(&a[1]).join(s(&a[0])))
    });
    fixed(f, "sortAlpha", &[Any], |_, a| {
        let mut v = match &a[0] {
            Value::List(_) | Value::Bytes(_) => strslice(&a[0]),
            other => vec![strval(other)],
        };
        v.sort();
        Ok(str_list(v))
    });
    var(f, "seq", &[], Int, |_, a| ok(seq(a)));
    fixed(f, "atoi", &[Str], |_, a| {
        ok(s(&a[0]).parse::<i64>().unwrap_or(0))
    });
    fixed(f, "randAlphaNum", &[Int], |_, a| {
        random_string(
            i(&a[0]),
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
        )
    });
    fixed(f, "randAlpha", &[Int], |_, a| {
        random_string(
            i(&a[0]),
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
        )
    });
    fixed(f, "randNumeric", &[Int], |_, a| {
        random_string(i(&a[0]), b"0123456789")
    });
    fixed(f, "randAscii", &[Int], |_, a| {
        let printable: Vec<u8> = (32u8..=126).collect();
        random_string(i(&a[0]), &printable)
    });
    fixed(f, "shuffle", &[Str], |_, a| {
        let mut cs: Vec<char> = s(&a[0]).chars().collect();
        for k in (1..cs.len()).rev() {
            let j = (super::crypto::random_u64() % (k as u64 + 1)) as usize;
            cs.swap(k, j);
        }
        ok(cs.into_iter().collect::<String>())
    });
}

fn random_string(n: i64, alphabet: &[u8]) -> Result<Value, Error> {
    if n < 0 {
        return Err(panic_err("runtime error: makeslice: len out of range"));
    }
    if n > (16 << 20) {
        return Err(Error::limit(format!(
            "a random string of {n} characters is over the output limit"
        )));
    }
    let mut out = String::with_capacity(n as usize);
    for _ in 0..n {
        let k = (super::crypto::random_u64() % alphabet.len() as u64) as usize;
        out.push(alphabet[k] as char);
    }
    Ok(out.into())
}
