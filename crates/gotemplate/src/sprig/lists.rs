//! Sprig's list functions. The `must*` forms return the error that the plain forms panic with;
//! Go's template engine reports both the same way.

use std::borrow::Cow;

use super::conv::{empty, to_i64};
use super::{fixed, panic_err, var};
use crate::error::Error;
use crate::funcs::{Functions, Type};
use crate::value::Value;

use Type::{Any, Int};

fn kind_name(v: &Value) -> &'static str {
    v.kind_name()
}

/// The elements of a Go slice argument, or Sprig's error for other kinds.
fn items<'a>(v: &'a Value, what: &str) -> Result<Cow<'a, [Value]>, Error> {
    match v {
        Value::List(l) => Ok(Cow::Borrowed(l)),
        Value::Bytes(b) => Ok(Cow::Owned(Value::byte_items(b))),
        Value::Nil => Err(panic_err(
            "runtime error: invalid memory address or nil pointer dereference",
        )),
        other => Err(panic_err(format!(
            "Cannot {what} on type {}",
            kind_name(other)
        ))),
    }
}

fn list(v: Vec<Value>) -> Result<Value, Error> {
    Ok(Value::list(v))
}

fn in_list(hay: &[Value], needle: &Value) -> bool {
    hay.iter().any(|x| x.deep_equal(needle))
}

fn push(a: &[Value]) -> Result<Value, Error> {
    let mut l = items(&a[0], "push")?.to_vec();
    l.push(a[1].clone());
    list(l)
}

fn prepend(a: &[Value]) -> Result<Value, Error> {
    let mut l = vec![a[1].clone()];
    l.extend_from_slice(&items(&a[0], "prepend")?);
    list(l)
}

fn first(a: &[Value]) -> Result<Value, Error> {
    let l = items(&a[0], "find first")?;
    Ok(l.first().cloned().unwrap_or(Value::Nil))
}

fn last(a: &[Value]) -> Result<Value, Error> {
    let l = items(&a[0], "find last")?;
    Ok(l.last().cloned().unwrap_or(Value::Nil))
}

fn rest(a: &[Value]) -> Result<Value, Error> {
    let l = items(&a[0], "find rest")?;
    if l.is_empty() {
        return Ok(Value::Nil);
    }
    list(l[1..].to_vec())
}

fn initial(a: &[Value]) -> Result<Value, Error> {
    let l = items(&a[0], "find initial")?;
    if l.is_empty() {
        return Ok(Value::Nil);
    }
    list(l[..l.len() - 1].to_vec())
}

fn reverse(a: &[Value]) -> Result<Value, Error> {
    let mut l = items(&a[0], "find reverse")?.to_vec();
    l.reverse();
    list(l)
}

fn uniq(a: &[Value]) -> Result<Value, Error> {
    let l = items(&a[0], "find uniq")?;
    let mut out: Vec<Value> = Vec::new();
    for x in l.iter() {
        if !in_list(&out, x) {
            out.push(x.clone());
        }
    }
    list(out)
}

fn compact(a: &[Value]) -> Result<Value, Error> {
    let l = items(&a[0], "compact")?;
    list(l.iter().filter(|x| !empty(x)).cloned().collect())
}

/// The elements of a `[]byte` are `uint8`s, which no value of a template equals in Go
/// (`has 104 $bytes` is false): `has` and `without` compare them with nothing.
fn without(a: &[Value]) -> Result<Value, Error> {
    let l = items(&a[0], "find without")?;
    if matches!(a[0], Value::Bytes(_)) {
        return list(l.into_owned());
    }
    list(l.iter().filter(|x| !in_list(&a[1..], x)).cloned().collect())
}

fn has(a: &[Value]) -> Result<Value, Error> {
    if a[1].is_nil() {
        return Ok(Value::Bool(false));
    }
    let l = items(&a[1], "find has")?;
    Ok(Value::Bool(
        !matches!(a[1], Value::Bytes(_)) && in_list(&l, &a[0]),
    ))
}

fn slice(a: &[Value]) -> Result<Value, Error> {
    let l = match &a[0] {
        Value::List(l) => Cow::Borrowed(&l[..]),
        // Go's reflect slices a []byte into a []byte.
        Value::Bytes(b) => Cow::Owned(Value::byte_items(b)),
        Value::Nil => {
            return Err(panic_err(
                "runtime error: invalid memory address or nil pointer dereference",
            ));
        }
        other => {
            return Err(panic_err(format!(
                "list should be type of slice or array but {}",
                kind_name(other)
            )));
        }
    };
    if l.is_empty() {
        return Ok(Value::Nil);
    }
    let start = a.get(1).map(to_i64).unwrap_or(0);
    let end = a.get(2).map(to_i64).unwrap_or(l.len() as i64);
    if start < 0 || end < start || end > l.len() as i64 {
        return Err(panic_err("reflect.Value.Slice: slice index out of bounds"));
    }
    let (start, end) = (start as usize, end as usize);
    match &a[0] {
        Value::Bytes(b) => Ok(Value::bytes(&b[start..end])),
        _ => list(l[start..end].to_vec()),
    }
}

fn concat(a: &[Value]) -> Result<Value, Error> {
    let mut out = Vec::new();
    for x in a {
        match x {
            Value::List(l) => out.extend(l.iter().cloned()),
            Value::Bytes(b) => out.extend(Value::byte_items(b)),
            other => {
                return Err(panic_err(format!(
                    "Cannot concat type {} as list",
                    kind_name(other)
                )));
            }
        }
    }
    list(out)
}

fn chunk(a: &[Value]) -> Result<Value, Error> {
    let size = match &a[0] {
        Value::Int(i) => *i,
        _ => 0,
    };
    let l = items(&a[1], "chunk")?;
    if size <= 0 {
        return Err(panic_err("runtime error: integer divide by zero"));
    }
    list(
        l.chunks(size as usize)
            .map(|c| Value::list(c.to_vec()))
            .collect(),
    )
}

fn until_step(start: i64, stop: i64, step: i64) -> Result<Value, Error> {
    let mut v = Vec::new();
    let cap = 10_000_000;
    if stop < start {
        if step >= 0 {
            return list(v);
        }
        let mut x = start;
        while x > stop {
            v.push(Value::Int(x));
            if v.len() > cap {
                return Err(Error::limit("untilStep: over 10000000 elements".into()));
            }
            x += step;
        }
        return list(v);
    }
    if step <= 0 {
        return list(v);
    }
    let mut x = start;
    while x < stop {
        v.push(Value::Int(x));
        if v.len() > cap {
            return Err(Error::limit("untilStep: over 10000000 elements".into()));
        }
        x += step;
    }
    list(v)
}

fn int(a: &Value) -> i64 {
    match a {
        Value::Int(i) => *i,
        _ => 0,
    }
}

pub(super) fn register(f: &mut Functions) {
    var(f, "list", &[], Any, |_, a| list(a.to_vec()));
    var(f, "tuple", &[], Any, |_, a| list(a.to_vec()));
    for name in ["append", "push", "mustAppend", "mustPush"] {
        fixed(f, name, &[Any, Any], |_, a| push(a));
    }
    for name in ["prepend", "mustPrepend"] {
        fixed(f, name, &[Any, Any], |_, a| prepend(a));
    }
    for name in ["first", "mustFirst"] {
        fixed(f, name, &[Any], |_, a| first(a));
    }
    for name in ["last", "mustLast"] {
        fixed(f, name, &[Any], |_, a| last(a));
    }
    for name in ["rest", "mustRest"] {
        fixed(f, name, &[Any], |_, a| rest(a));
    }
    for name in ["initial", "mustInitial"] {
        fixed(f, name, &[Any], |_, a| initial(a));
    }
    for name in ["reverse", "mustReverse"] {
        fixed(f, name, &[Any], |_, a| reverse(a));
    }
    for name in ["uniq", "mustUniq"] {
        fixed(f, name, &[Any], |_, a| uniq(a));
    }
    for name in ["compact", "mustCompact"] {
        fixed(f, name, &[Any], |_, a| compact(a));
    }
    for name in ["without", "mustWithout"] {
        var(f, name, &[Any], Any, |_, a| without(a));
    }
    for name in ["has", "mustHas"] {
        fixed(f, name, &[Any, Any], |_, a| has(a));
    }
    for name in ["slice", "mustSlice"] {
        var(f, name, &[Any], Any, |_, a| slice(a));
    }
    var(f, "concat", &[], Any, |_, a| concat(a));
    for name in ["chunk", "mustChunk"] {
        fixed(f, name, &[Int, Any], |_, a| chunk(a));
    }
    fixed(f, "until", &[Int], |_, a| {
        let n = int(&a[0]);
        until_step(0, n, if n < 0 { -1 } else { 1 })
    });
    fixed(f, "untilStep", &[Int, Int, Int], |_, a| {
        until_step(int(&a[0]), int(&a[1]), int(&a[2]))
    });
}
