//! Go's predefined template functions (`and` and `or` short-circuit in the executor).

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::error::Error;
use crate::funcs::{Effects, Function, Type};
use crate::gofmt;
use crate::value::Value;

const NAMES: &[&str] = &[
    "and", "call", "html", "index", "slice", "js", "len", "not", "or", "print", "printf",
    "println", "urlquery", "eq", "ge", "gt", "le", "lt", "ne",
];

pub(crate) fn is_builtin(name: &str) -> bool {
    NAMES.contains(&name)
}

pub(crate) fn builtin(name: &str) -> Option<&'static Function> {
    static TABLE: OnceLock<HashMap<&'static str, Function>> = OnceLock::new();
    TABLE.get_or_init(table).get(name)
}

fn table() -> HashMap<&'static str, Function> {
    use Type::Any;
    let mut m: HashMap<&'static str, Function> = HashMap::new();
    m.insert("call", Function::variadic(&[Any], Any, |_, a| call(a)));
    m.insert(
        "html",
        Function::variadic(&[], Any, |_, a| Ok(html_escape(&eval_args(a)).into())),
    );
    m.insert(
        "js",
        Function::variadic(&[], Any, |_, a| Ok(js_escape(&eval_args(a)).into())),
    );
    m.insert(
        "urlquery",
        Function::variadic(&[], Any, |_, a| Ok(query_escape(&eval_args(a)).into())),
    );
    m.insert(
        "index",
        Function::variadic(&[Any], Any, |_, a| index(&a[0], &a[1..])),
    );
    m.insert(
        "slice",
        Function::variadic(&[Any], Any, |_, a| slice(&a[0], &a[1..])),
    );
    m.insert("len", Function::new(&[Any], |_, a| length(&a[0])));
    m.insert(
        "not",
        Function::new(&[Any], |_, a| Ok(Value::Bool(!a[0].truthy()))),
    );
    m.insert(
        "print",
        Function::variadic(&[], Any, |_, a| Ok(gofmt::sprint(a).into())),
    );
    m.insert(
        "println",
        Function::variadic(&[], Any, |_, a| Ok(gofmt::sprintln(a).into())),
    );
    m.insert(
        "printf",
        Function::variadic(&[Type::String], Any, |_, a| {
            let f = a[0].as_str().unwrap_or("");
            Ok(gofmt::sprintf(f, &a[1..]).into())
        }),
    );
    m.insert(
        "eq",
        Function::variadic(&[Any], Any, |_, a| eq(&a[0], &a[1..]).map(Value::Bool)),
    );
    m.insert(
        "ne",
        Function::new(&[Any, Any], |_, a| {
            eq(&a[0], &a[1..2]).map(|b| Value::Bool(!b))
        }),
    );
    m.insert(
        "lt",
        Function::new(&[Any, Any], |_, a| lt(&a[0], &a[1]).map(Value::Bool)),
    );
    m.insert(
        "le",
        Function::new(&[Any, Any], |_, a| le(&a[0], &a[1]).map(Value::Bool)),
    );
    m.insert(
        "gt",
        Function::new(&[Any, Any], |_, a| {
            le(&a[0], &a[1]).map(|b| Value::Bool(!b))
        }),
    );
    m.insert(
        "ge",
        Function::new(&[Any, Any], |_, a| {
            lt(&a[0], &a[1]).map(|b| Value::Bool(!b))
        }),
    );
    // and/or are evaluated lazily by the executor; these entries give their signature.
    m.insert(
        "and",
        Function::variadic(&[Any], Any, |_, a| Ok(a[a.len() - 1].clone())),
    );
    m.insert(
        "or",
        Function::variadic(&[Any], Any, |_, a| Ok(a[a.len() - 1].clone())),
    );
    // `call` runs whatever function it is given; the rest compute from their arguments alone.
    for (name, f) in m.iter_mut() {
        f.effects = match *name {
            "call" => Effects::Unknown,
            "index" | "slice" | "len" | "not" | "and" | "or" => Effects::ShapeOnly,
            _ => Effects::Pure,
        };
    }
    m
}

fn call(a: &[Value]) -> Result<Value, Error> {
    match &a[0] {
        Value::Nil => Err(Error::func("call of nil")),
        other => Err(Error::func(format!(
            "non-function {} of type {}",
            gofmt::sprint_value(other),
            other.type_name()
        ))),
    }
}

/// Go's `evalArgs`: one string as is, else `fmt.Sprint` with nil printed as `<no value>`.
pub(crate) fn eval_args(args: &[Value]) -> String {
    if let [Value::String(s)] = args {
        return s.clone();
    }
    let args: Vec<Value> = args
        .iter()
        .map(|a| match a {
            Value::Nil => Value::String("<no value>".into()),
            other => other.clone(),
        })
        .collect();
    gofmt::sprint(&args)
}

/// Go's `template.HTMLEscapeString`.
pub fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\0' => out.push('\u{FFFD}'),
            '"' => out.push_str("&#34;"),
            '\'' => out.push_str("&#39;"),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

/// Go's `template.JSEscapeString`.
pub fn js_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '"' => out.push_str("\\\""),
            '<' => out.push_str("\\u003C"),
            '>' => out.push_str("\\u003E"),
            '&' => out.push_str("\\u0026"),
            '=' => out.push_str("\\u003D"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u00{:02X}", c as u32)),
            c if (c as u32) < 0x80 => out.push(c),
            c if c.is_control() || c.is_whitespace() => {
                out.push_str(&format!("\\u{:04X}", c as u32));
            }
            c => out.push(c),
        }
    }
    out
}

/// Go's `url.QueryEscape`.
pub fn query_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            b => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

fn index_arg(i: &Value, cap: usize) -> Result<usize, Error> {
    let x = match i {
        Value::Int(x) => *x,
        Value::Nil => return Err(Error::func("cannot index slice/array with nil")),
        other => {
            return Err(Error::func(format!(
                "cannot index slice/array with type {}",
                other.type_name()
            )));
        }
    };
    if x < 0 || x as u64 > cap as u64 {
        return Err(Error::func(format!("index out of range: {x}")));
    }
    Ok(x as usize)
}

fn index(item: &Value, indexes: &[Value]) -> Result<Value, Error> {
    let mut item = item.clone();
    if item.is_nil() {
        return Err(Error::func("index of untyped nil"));
    }
    for ix in indexes {
        item = match &item {
            Value::List(l) => {
                let x = index_arg(ix, l.len())?;
                l.get(x)
                    .cloned()
                    .ok_or_else(|| Error::func("reflect: slice index out of range"))?
            }
            Value::String(s) => {
                let x = index_arg(ix, s.len())?;
                Value::Int(i64::from(*s.as_bytes().get(x).ok_or_else(|| {
                    Error::func("reflect: string index out of range")
                })?))
            }
            Value::Bytes(b) => {
                let x = index_arg(ix, b.len())?;
                Value::Int(i64::from(
                    *b.get(x)
                        .ok_or_else(|| Error::func("reflect: slice index out of range"))?,
                ))
            }
            Value::Map(m) => match ix {
                Value::String(k) => m.get(k).unwrap_or(Value::Nil),
                Value::Nil => {
                    return Err(Error::func("value is nil; should be of type string"));
                }
                other => {
                    return Err(Error::func(format!(
                        "value has type {}; should be string",
                        other.type_name()
                    )));
                }
            },
            Value::Nil => return Err(Error::func("index of nil pointer")),
            // A named map or slice (Helm's `.Files`): indexed as that map or slice, a missing
            // key giving the zero value of its elements.
            Value::Object(o) if o.underlying().is_some() => match (o.underlying(), ix) {
                (Some(Value::Map(ref m)), Value::String(key)) => {
                    m.get(key).unwrap_or_else(|| o.zero_element())
                }
                (Some(under), _) => index(&under, std::slice::from_ref(ix))?,
                (None, _) => Value::Nil,
            },
            other => {
                return Err(Error::func(format!(
                    "can't index item of type {}",
                    other.type_name()
                )));
            }
        };
    }
    Ok(item)
}

fn slice(item: &Value, indexes: &[Value]) -> Result<Value, Error> {
    if item.is_nil() {
        return Err(Error::func("slice of untyped nil"));
    }
    if indexes.len() > 3 {
        return Err(Error::func(format!(
            "too many slice indexes: {}",
            indexes.len()
        )));
    }
    let len = match item {
        Value::String(s) => {
            if indexes.len() == 3 {
                return Err(Error::func("cannot 3-index slice a string"));
            }
            s.len()
        }
        Value::List(l) => l.len(),
        Value::Bytes(b) => b.len(),
        other => {
            return Err(Error::func(format!(
                "can't slice item of type {}",
                other.type_name()
            )));
        }
    };
    let mut idx = [0, len, len];
    for (i, x) in indexes.iter().enumerate() {
        idx[i] = index_arg(x, len)?;
    }
    if idx[0] > idx[1] {
        return Err(Error::func(format!(
            "invalid slice index: {} > {}",
            idx[0], idx[1]
        )));
    }
    if indexes.len() == 3 && idx[1] > idx[2] {
        return Err(Error::func(format!(
            "invalid slice index: {} > {}",
            idx[1], idx[2]
        )));
    }
    Ok(match item {
        Value::String(s) => {
            let bytes = &s.as_bytes()[idx[0]..idx[1]];
            Value::String(String::from_utf8_lossy(bytes).into_owned())
        }
        Value::List(l) => Value::list(l[idx[0]..idx[1]].to_vec()),
        Value::Bytes(b) => Value::bytes(&b[idx[0]..idx[1]]),
        _ => Value::Nil,
    })
}

fn length(v: &Value) -> Result<Value, Error> {
    match &*v.underlying() {
        Value::String(s) => Ok(Value::from(s.len())),
        Value::List(l) => Ok(Value::from(l.len())),
        Value::Bytes(b) => Ok(Value::from(b.len())),
        Value::Map(m) => Ok(Value::from(m.len())),
        Value::Nil => Err(Error::func(
            "reflect: call of reflect.Value.Type on zero Value",
        )),
        other => Err(Error::func(format!("len of type {}", other.type_name()))),
    }
}

#[derive(PartialEq, Clone, Copy)]
enum Kind {
    Bool,
    Int,
    Float,
    String,
    Invalid,
}

fn basic_kind(v: &Value) -> Kind {
    match v {
        Value::Bool(_) => Kind::Bool,
        Value::Int(_) => Kind::Int,
        Value::Float(_) => Kind::Float,
        Value::String(_) => Kind::String,
        _ => Kind::Invalid,
    }
}

const BAD_COMPARISON: &str = "incompatible types for comparison";
const BAD_COMPARISON_TYPE: &str = "invalid type for comparison";

/// Go's `eq`: true when `a` equals any of `others`.
pub(crate) fn eq(a: &Value, others: &[Value]) -> Result<bool, Error> {
    if others.is_empty() {
        return Err(Error::func("missing argument for comparison"));
    }
    let k1 = basic_kind(a);
    for b in others {
        let k2 = basic_kind(b);
        let truth = if k1 != k2 {
            if !a.is_nil() && !b.is_nil() {
                return Err(bad_comparison(a, b));
            }
            false
        } else {
            match (a, b) {
                (Value::Bool(x), Value::Bool(y)) => x == y,
                (Value::Int(x), Value::Int(y)) => x == y,
                (Value::Float(x), Value::Float(y)) => x == y,
                (Value::String(x), Value::String(y)) => x == y,
                _ => {
                    if a.is_nil() || b.is_nil() {
                        a.is_nil() == b.is_nil()
                    } else {
                        match (a, b) {
                            (Value::List(_) | Value::Map(_) | Value::Bytes(_), _) => {
                                // Go prints the reflect.Value with `%s`.
                                return Err(Error::func(format!(
                                    "non-comparable type {}: {}",
                                    gofmt::sprintf("%s", std::slice::from_ref(b)),
                                    b.type_name()
                                )));
                            }
                            // A named map or slice (Helm's `.Files`) is not comparable
                            // either; Go prints it as that map or slice.
                            (Value::Object(x), _) if x.underlying().is_some() => {
                                return Err(Error::func(format!(
                                    "non-comparable type {}: {}",
                                    gofmt::sprintf("%s", std::slice::from_ref(&*b.underlying())),
                                    b.type_name()
                                )));
                            }
                            (Value::Object(x), Value::Object(y)) => std::sync::Arc::ptr_eq(x, y),
                            _ => {
                                return Err(Error::func(format!(
                                    "non-comparable types {}: {}, {}: {}",
                                    gofmt::sprint_value(a),
                                    a.type_name(),
                                    b.type_name(),
                                    gofmt::sprint_value(b)
                                )));
                            }
                        }
                    }
                }
            }
        };
        if truth {
            return Ok(true);
        }
    }
    Ok(false)
}

fn bad_comparison(a: &Value, b: &Value) -> Error {
    Error::func(format!(
        "{BAD_COMPARISON}: {} and {}",
        a.type_name(),
        b.type_name()
    ))
}

pub(crate) fn lt(a: &Value, b: &Value) -> Result<bool, Error> {
    let k1 = basic_kind(a);
    if k1 == Kind::Invalid {
        return Err(Error::func(BAD_COMPARISON_TYPE));
    }
    let k2 = basic_kind(b);
    if k2 == Kind::Invalid {
        return Err(Error::func(BAD_COMPARISON_TYPE));
    }
    if k1 != k2 {
        return Err(bad_comparison(a, b));
    }
    Ok(match (a, b) {
        (Value::Int(x), Value::Int(y)) => x < y,
        (Value::Float(x), Value::Float(y)) => x < y,
        (Value::String(x), Value::String(y)) => x < y,
        _ => return Err(Error::func(BAD_COMPARISON_TYPE)),
    })
}

pub(crate) fn le(a: &Value, b: &Value) -> Result<bool, Error> {
    let l = lt(a, b)?;
    if l {
        return Ok(true);
    }
    eq(a, std::slice::from_ref(b))
}
