//! RFC 6902 JSON patch (`application/json-patch+json`), as the API server applies it: the
//! operations `add`, `remove`, `replace`, `move`, `copy` and `test`, RFC 6901 pointers with
//! `~0`/`~1` and `-` for the end of a list. Like the API server's library, a `test` of a
//! missing member against `null` passes: kube-runtime's finalizer helper relies on it when it
//! adds the first finalizer (`test /metadata/finalizers null`, then `add`).

use serde_json::Value;

/// Applies `patch` (a JSON array of operations) to `target`; the error says which operation
/// failed and why.
pub fn apply(target: &Value, patch: &Value) -> Result<Value, String> {
    let Some(operations) = patch.as_array() else {
        return Err("a JSON patch must be a list of operations".into());
    };
    let mut document = target.clone();
    for (index, operation) in operations.iter().enumerate() {
        apply_one(&mut document, operation).map_err(|e| format!("operation {index}: {e}"))?;
    }
    Ok(document)
}

fn apply_one(document: &mut Value, operation: &Value) -> Result<(), String> {
    let op = operation["op"].as_str().ok_or("missing \"op\"")?;
    let path = pointer(operation, "path")?;
    let value = || {
        operation
            .get("value")
            .cloned()
            .ok_or_else(|| format!("{op} needs a \"value\""))
    };
    match op {
        "add" => add(document, &path, value()?),
        "remove" => remove(document, &path).map(drop),
        "replace" => {
            remove(document, &path)?;
            add(document, &path, value()?)
        }
        "move" => {
            let from = pointer(operation, "from")?;
            let moved = remove(document, &from)?;
            add(document, &path, moved)
        }
        "copy" => {
            let from = pointer(operation, "from")?;
            let copied = get(document, &from)
                .cloned()
                .ok_or_else(|| format!("copy from {}: no such member", render(&from)))?;
            add(document, &path, copied)
        }
        "test" => {
            let expected = operation.get("value").cloned().unwrap_or(Value::Null);
            let actual = get(document, &path).cloned().unwrap_or(Value::Null);
            if actual == expected {
                Ok(())
            } else {
                Err(format!(
                    "testing value {} failed: it is {actual}, not {expected}",
                    render(&path)
                ))
            }
        }
        other => Err(format!("unknown operation \"{other}\"")),
    }
}

fn pointer(operation: &Value, field: &str) -> Result<Vec<String>, String> {
    let text = operation[field]
        .as_str()
        .ok_or_else(|| format!("missing \"{field}\""))?;
    if text.is_empty() {
        return Ok(Vec::new());
    }
    let rest = text
        .strip_prefix('/')
        .ok_or_else(|| format!("the pointer \"{text}\" must start with /"))?;
    Ok(rest
        .split('/')
        .map(|token| token.replace("~1", "/").replace("~0", "~"))
        .collect())
}

fn render(path: &[String]) -> String {
    path.iter().map(|t| format!("/{t}")).collect()
}

fn get<'a>(document: &'a Value, path: &[String]) -> Option<&'a Value> {
    path.iter().try_fold(document, |value, token| match value {
        Value::Object(map) => map.get(token),
        Value::Array(items) => token.parse::<usize>().ok().and_then(|i| items.get(i)),
        _ => None,
    })
}

fn parent<'a>(document: &'a mut Value, path: &[String]) -> Result<&'a mut Value, String> {
    let mut value = document;
    for token in path {
        value = match value {
            Value::Object(map) => map.get_mut(token),
            Value::Array(items) => token.parse::<usize>().ok().and_then(|i| items.get_mut(i)),
            _ => None,
        }
        .ok_or_else(|| format!("no member {}", render(path)))?;
    }
    Ok(value)
}

fn add(document: &mut Value, path: &[String], value: Value) -> Result<(), String> {
    let Some((last, above)) = path.split_last() else {
        *document = value;
        return Ok(());
    };
    match parent(document, above)? {
        Value::Object(map) => {
            map.insert(last.clone(), value);
            Ok(())
        }
        Value::Array(items) => {
            let index = if last == "-" {
                items.len()
            } else {
                last.parse::<usize>()
                    .ok()
                    .filter(|i| *i <= items.len())
                    .ok_or_else(|| format!("index {} is out of range", render(path)))?
            };
            items.insert(index, value);
            Ok(())
        }
        _ => Err(format!("{} is inside a scalar", render(path))),
    }
}

fn remove(document: &mut Value, path: &[String]) -> Result<Value, String> {
    let Some((last, above)) = path.split_last() else {
        return Err("cannot remove the whole document".into());
    };
    let missing = || format!("no member {} to remove", render(path));
    match parent(document, above)? {
        Value::Object(map) => map.remove(last).ok_or_else(missing),
        Value::Array(items) => match last.parse::<usize>() {
            Ok(i) if i < items.len() => Ok(items.remove(i)),
            _ => Err(missing()),
        },
        _ => Err(missing()),
    }
}
