//! Sprig's defaults, type checks and flow control.

use super::conv::empty;
use super::{fixed, var};
use crate::error::Error;
use crate::funcs::{Functions, Type};
use crate::value::Value;

use Type::{Any, Bool, String as Str};

fn s(a: &Value) -> &str {
    a.as_str().unwrap_or("")
}

pub(super) fn register(f: &mut Functions) {
    var(f, "default", &[Any], Any, |_, a| {
        Ok(match a.get(1) {
            Some(g) if !empty(g) => g.clone(),
            _ => a[0].clone(),
        })
    });
    fixed(f, "empty", &[Any], |_, a| Ok(Value::Bool(empty(&a[0]))));
    var(f, "coalesce", &[], Any, |_, a| {
        Ok(a.iter().find(|v| !empty(v)).cloned().unwrap_or(Value::Nil))
    });
    var(f, "all", &[], Any, |_, a| {
        Ok(Value::Bool(a.iter().all(|v| !empty(v))))
    });
    var(f, "any", &[], Any, |_, a| {
        Ok(Value::Bool(a.iter().any(|v| !empty(v))))
    });
    fixed(f, "ternary", &[Any, Any, Bool], |_, a| {
        Ok(if matches!(a[2], Value::Bool(true)) {
            a[0].clone()
        } else {
            a[1].clone()
        })
    });
    fixed(f, "typeOf", &[Any], |_, a| Ok(a[0].type_name().into()));
    fixed(f, "typeIs", &[Str, Any], |_, a| {
        Ok(Value::Bool(s(&a[0]) == a[1].type_name()))
    });
    fixed(f, "typeIsLike", &[Str, Any], |_, a| {
        let t = a[1].type_name();
        let target = s(&a[0]);
        Ok(Value::Bool(target == t || format!("*{target}") == t))
    });
    fixed(f, "kindOf", &[Any], |_, a| Ok(a[0].kind_name().into()));
    fixed(f, "kindIs", &[Str, Any], |_, a| {
        Ok(Value::Bool(s(&a[0]) == a[1].kind_name()))
    });
    fixed(f, "deepEqual", &[Any, Any], |_, a| {
        Ok(Value::Bool(a[0].deep_equal(&a[1])))
    });
    fixed(f, "fail", &[Str], |_, a| Err(Error::func(s(&a[0]))));
    fixed(f, "uuidv4", &[], |_, _| Ok(super::crypto::uuid_v4().into()));
}
