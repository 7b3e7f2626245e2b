//! Sprig's conversions: `strval` and spf13/cast's `ToInt64`/`ToFloat64` (errors become 0).

use crate::gofmt;
use crate::value::Value;

/// Sprig's `strval`: strings as they are, a `[]byte` as its text, everything else as `%v`.
pub fn strval(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        other => gofmt::sprint_value(other),
    }
}

/// cast's `trimZeroDecimal`: "1.00" -> "1".
fn trim_zero_decimal(s: &str) -> &str {
    let b = s.as_bytes();
    let mut found_zero = false;
    for i in (1..=b.len()).rev() {
        match b[i - 1] {
            b'.' => {
                if found_zero {
                    return &s[..i - 1];
                }
            }
            b'0' => found_zero = true,
            _ => return s,
        }
    }
    s
}

/// spf13/cast `ToInt64`: 0 when it cannot convert.
pub fn to_i64(v: &Value) -> i64 {
    match v {
        Value::Int(i) => *i,
        Value::Float(f) => {
            if f.is_nan() {
                i64::MIN
            } else {
                *f as i64
            }
        }
        Value::Bool(b) => i64::from(*b),
        Value::String(s) => crate::parse::parse_go_int(trim_zero_decimal(s)).unwrap_or(0),
        _ => 0,
    }
}

/// spf13/cast `ToFloat64`: 0 when it cannot convert.
pub fn to_f64(v: &Value) -> f64 {
    match v {
        Value::Int(i) => *i as f64,
        Value::Float(f) => *f,
        Value::Bool(b) => f64::from(u8::from(*b)),
        Value::String(s) => parse_float(s).unwrap_or(0.0),
        _ => 0.0,
    }
}

/// Go's `strconv.ParseFloat(s, 64)` for decimal text (with inf/nan).
pub(crate) fn parse_float(s: &str) -> Option<f64> {
    let lower = s.to_ascii_lowercase();
    let body = lower.trim_start_matches(['+', '-']);
    match body {
        "inf" | "infinity" => {
            return Some(if lower.starts_with('-') {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            });
        }
        "nan" => return Some(f64::NAN),
        _ => {}
    }
    if body.starts_with("0x") {
        return crate::parse::parse_go_float(s);
    }
    if s.contains('_') || body.is_empty() {
        return None;
    }
    s.parse::<f64>().ok()
}

/// Sprig's `strslice`: a list's non-nil elements as strings, or the one value.
pub(crate) fn strslice(v: &Value) -> Vec<String> {
    match v {
        Value::List(l) => l.iter().filter(|x| !x.is_nil()).map(strval).collect(),
        Value::Bytes(b) => b.iter().map(u8::to_string).collect(),
        Value::Nil => Vec::new(),
        other => vec![strval(other)],
    }
}

pub(crate) fn str_list(items: Vec<String>) -> Value {
    Value::list(items.into_iter().map(Value::String).collect())
}

/// Sprig's `empty`.
pub(crate) fn empty(v: &Value) -> bool {
    match v {
        Value::Object(o) => o.underlying().is_some_and(|u| empty(&u)),
        other => !other.truthy(),
    }
}
