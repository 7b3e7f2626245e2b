//! Sprig's dictionary functions: they change maps in place, as Go maps are references.

use super::conv::{empty, str_list, strval};
use super::{fixed, panic_err, var};
use crate::error::Error;
use crate::funcs::{Functions, Type};
use crate::value::{Map, Value};

use Type::{Any, Map as M, String as Str};

fn map_arg(v: &Value) -> Result<&Map, Error> {
    match v {
        Value::Map(m) => Ok(m),
        _ => Err(panic_err("assignment to entry in nil map")),
    }
}

fn dict(a: &[Value]) -> Value {
    let m = Map::new();
    let mut k = 0;
    while k < a.len() {
        let key = strval(&a[k]);
        let val = a.get(k + 1).cloned().unwrap_or_else(|| Value::from(""));
        m.insert(key, val);
        k += 2;
    }
    Value::Map(m)
}

/// mergo's `isEmptyValue` for a map element.
fn is_empty_value(v: &Value) -> bool {
    empty(v)
}

/// mergo.Merge / MergeWithOverwrite of `src` into `dst`, deep for maps.
fn merge_into(dst: &Map, src: &Map, overwrite: bool, depth: usize) {
    if depth > 100 || dst.ptr_eq(src) {
        return;
    }
    for (k, sv) in src.entries() {
        let dv = dst.get(&k);
        if sv.is_nil() {
            if overwrite {
                dst.insert(k, Value::Nil);
            }
            continue;
        }
        if let (Value::Map(sm), Some(Value::Map(dm))) = (&sv, &dv) {
            merge_into(dm, sm, overwrite, depth + 1);
            if !dm.is_empty() {
                continue;
            }
        } else if let Some(d) = &dv
            && !is_empty_value(d)
            && matches!(sv, Value::List(_))
            && !overwrite
        {
            continue;
        }
        let set = match &dv {
            None => true,
            Some(d) => overwrite || is_empty_value(d),
        };
        if set {
            dst.insert(k, sv.clone());
        }
    }
}

fn merge(a: &[Value], overwrite: bool) -> Result<Value, Error> {
    let dst = match &a[0] {
        Value::Map(m) => m.clone(),
        _ => return Ok(Value::from("")),
    };
    for s in &a[1..] {
        if let Value::Map(src) = s {
            merge_into(&dst, src, overwrite, 0);
        }
    }
    Ok(Value::Map(dst))
}

fn dig(a: &[Value]) -> Result<Value, Error> {
    if a.len() < 3 {
        return Err(panic_err("dig needs at least three arguments"));
    }
    let last = &a[a.len() - 1];
    let Some(mut cur) = last.as_map().filter(|m| m.type_name().is_none()).cloned() else {
        return Err(panic_err(format!(
            "interface conversion: interface {{}} is {}, not map[string]interface {{}}",
            a[a.len() - 1].type_name()
        )));
    };
    let default = a[a.len() - 2].clone();
    let keys = &a[..a.len() - 2];
    for (n, k) in keys.iter().enumerate() {
        let Value::String(k) = k else {
            return Err(panic_err(format!(
                "interface conversion: interface {{}} is {}, not string",
                k.type_name()
            )));
        };
        let Some(step) = cur.get(k) else {
            return Ok(default);
        };
        if n + 1 == keys.len() {
            return Ok(step);
        }
        match &step {
            Value::Map(m) if m.type_name().is_none() => cur = m.clone(),
            other => {
                return Err(panic_err(format!(
                    "interface conversion: interface {{}} is {}, not map[string]interface {{}}",
                    if other.is_nil() {
                        "nil".to_string()
                    } else {
                        other.type_name()
                    }
                )));
            }
        }
    }
    Ok(default)
}

pub(super) fn register(f: &mut Functions) {
    var(f, "dict", &[], Any, |_, a| Ok(dict(a)));
    fixed(f, "get", &[M, Str], |_, a| {
        Ok(a[0]
            .as_map()
            .and_then(|m| m.get(a[1].as_str().unwrap_or("")))
            .unwrap_or_else(|| Value::from("")))
    });
    fixed(f, "set", &[M, Str, Any], |_, a| {
        map_arg(&a[0])?.insert(a[1].as_str().unwrap_or(""), a[2].clone());
        Ok(a[0].clone())
    });
    fixed(f, "unset", &[M, Str], |_, a| {
        if let Value::Map(m) = &a[0] {
            m.remove(a[1].as_str().unwrap_or(""));
        }
        Ok(a[0].clone())
    });
    fixed(f, "hasKey", &[M, Str], |_, a| {
        Ok(Value::Bool(a[0].as_map().is_some_and(|m| {
            m.contains_key(a[1].as_str().unwrap_or(""))
        })))
    });
    var(f, "pluck", &[Str], M, |_, a| {
        let key = a[0].as_str().unwrap_or("");
        Ok(Value::list(
            a[1..]
                .iter()
                .filter_map(|d| d.as_map().and_then(|m| m.get(key)))
                .collect(),
        ))
    });
    var(f, "keys", &[], M, |_, a| {
        let mut out = Vec::new();
        for d in a {
            if let Value::Map(m) = d {
                out.extend(m.keys());
            }
        }
        Ok(str_list(out))
    });
    var(f, "pick", &[M], Str, |_, a| {
        let out = Map::new();
        if let Value::Map(m) = &a[0] {
            for k in &a[1..] {
                let k = k.as_str().unwrap_or("");
                if let Some(v) = m.get(k) {
                    out.insert(k, v);
                }
            }
        }
        Ok(Value::Map(out))
    });
    var(f, "omit", &[M], Str, |_, a| {
        let out = Map::new();
        if let Value::Map(m) = &a[0] {
            let drop: Vec<&str> = a[1..].iter().filter_map(Value::as_str).collect();
            for (k, v) in m.entries() {
                if !drop.contains(&k.as_str()) {
                    out.insert(k, v);
                }
            }
        }
        Ok(Value::Map(out))
    });
    for name in ["merge", "mustMerge"] {
        var(f, name, &[M], M, |_, a| merge(a, false));
    }
    for name in ["mergeOverwrite", "mustMergeOverwrite"] {
        var(f, name, &[M], M, |_, a| merge(a, true));
    }
    fixed(f, "values", &[M], |_, a| {
        Ok(Value::list(
            a[0].as_map()
                .map(|m| m.entries().into_iter().map(|(_, v)| v).collect())
                .unwrap_or_default(),
        ))
    });
    var(f, "dig", &[], Any, |_, a| dig(a));
    for name in ["deepCopy", "mustDeepCopy"] {
        fixed(f, name, &[Any], |_, a| Ok(a[0].deep_clone()));
    }
}
