//! Sprig's path, URL and network functions (Go's `path`, `net/url`).

use super::{fixed, panic_err};
use crate::funcs::{Functions, Type};
use crate::value::{Map, Value};

use Type::{Any, String as Str};

fn s(a: &Value) -> &str {
    a.as_str().unwrap_or("")
}

/// Go's `path.Clean`.
pub(crate) fn clean(p: &str) -> String {
    if p.is_empty() {
        return ".".into();
    }
    let rooted = p.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for seg in p.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|l| *l != "..") {
                    parts.pop();
                } else if !rooted {
                    parts.push("..");
                }
            }
            s => parts.push(s),
        }
    }
    let body = parts.join("/");
    match (rooted, body.is_empty()) {
        (true, _) => format!("/{body}"),
        (false, true) => ".".into(),
        (false, false) => body,
    }
}

fn base(p: &str) -> String {
    if p.is_empty() {
        return ".".into();
    }
    let t = p.trim_end_matches('/');
    if t.is_empty() {
        return "/".into();
    }
    t.rsplit('/').next().unwrap_or(t).to_string()
}

fn dir(p: &str) -> String {
    let d = match p.rfind('/') {
        Some(i) => &p[..i + 1],
        None => "",
    };
    clean(d)
}

fn ext(p: &str) -> String {
    for (i, c) in p.char_indices().rev() {
        if c == '/' {
            break;
        }
        if c == '.' {
            return p[i..].to_string();
        }
    }
    String::new()
}

fn url_parse(raw: &str) -> Result<Value, crate::Error> {
    let u = url::Url::parse(raw).map_err(|e| {
        panic_err(format!(
            "unable to parse url: parse {}: {e}",
            crate::gofmt::quote(raw)
        ))
    })?;
    let m = Map::new();
    m.insert("scheme", Value::from(u.scheme()));
    let host = match (u.host_str(), u.port()) {
        (Some(h), Some(p)) => format!("{h}:{p}"),
        (Some(h), None) => h.to_string(),
        _ => String::new(),
    };
    m.insert("host", Value::from(host));
    m.insert("hostname", Value::from(u.host_str().unwrap_or("")));
    m.insert("path", Value::from(u.path()));
    m.insert("query", Value::from(u.query().unwrap_or("")));
    m.insert("opaque", Value::from(""));
    m.insert("fragment", Value::from(u.fragment().unwrap_or("")));
    let userinfo = match (u.username(), u.password()) {
        ("", None) => String::new(),
        (user, None) => user.to_string(),
        (user, Some(p)) => format!("{user}:{p}"),
    };
    m.insert("userinfo", Value::from(userinfo));
    Ok(Value::Map(m))
}

fn url_join(d: &Value) -> Value {
    let Some(m) = d.as_map() else {
        return Value::from("");
    };
    let get = |k: &str| {
        m.get(k)
            .map(|v| super::conv::strval(&v))
            .unwrap_or_default()
    };
    let mut out = String::new();
    let scheme = get("scheme");
    if !scheme.is_empty() {
        out.push_str(&scheme);
        out.push(':');
    }
    let host = get("host");
    let userinfo = get("userinfo");
    if !host.is_empty() || !userinfo.is_empty() {
        out.push_str("//");
        if !userinfo.is_empty() {
            out.push_str(&userinfo);
            out.push('@');
        }
        out.push_str(&host);
    }
    let path = get("path");
    if !path.is_empty() && !path.starts_with('/') && !host.is_empty() {
        out.push('/');
    }
    out.push_str(&path);
    let query = get("query");
    if !query.is_empty() {
        out.push('?');
        out.push_str(&query);
    }
    let fragment = get("fragment");
    if !fragment.is_empty() {
        out.push('#');
        out.push_str(&fragment);
    }
    Value::from(out)
}

pub(super) fn register(f: &mut Functions) {
    for name in ["base", "osBase"] {
        fixed(f, name, &[Str], |_, a| Ok(base(s(&a[0])).into()));
    }
    for name in ["dir", "osDir"] {
        fixed(f, name, &[Str], |_, a| Ok(dir(s(&a[0])).into()));
    }
    for name in ["clean", "osClean"] {
        fixed(f, name, &[Str], |_, a| Ok(clean(s(&a[0])).into()));
    }
    for name in ["ext", "osExt"] {
        fixed(f, name, &[Str], |_, a| Ok(ext(s(&a[0])).into()));
    }
    for name in ["isAbs", "osIsAbs"] {
        fixed(f, name, &[Str], |_, a| {
            Ok(Value::Bool(s(&a[0]).starts_with('/')))
        });
    }
    fixed(f, "urlParse", &[Str], |_, a| url_parse(s(&a[0])));
    fixed(f, "urlJoin", &[Any], |_, a| Ok(url_join(&a[0])));
    fixed(f, "getHostByName", &[Str], |_, a| {
        use std::net::ToSocketAddrs;
        let addr = (s(&a[0]), 0)
            .to_socket_addrs()
            .ok()
            .and_then(|mut it| it.next())
            .map(|sa| sa.ip().to_string())
            .unwrap_or_default();
        Ok(addr.into())
    });
}
