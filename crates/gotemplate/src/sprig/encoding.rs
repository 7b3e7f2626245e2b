//! Sprig's encodings and checksums, and Go's `encoding/json` output for `toJson`.

use super::{fixed, panic_err};
use crate::funcs::{Functions, Type};
use crate::gofmt;
use crate::value::Value;

use base64::Engine as _;
use sha2::Digest as _;

use Type::{Any, String as Str};

fn s(a: &Value) -> &str {
    a.as_str().unwrap_or("")
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Go's JSON number text for a float64.
fn json_float(f: f64) -> String {
    let a = f.abs();
    let e = a != 0.0 && !(1e-6..1e21).contains(&a);
    let mut s = gofmt::format_float(f, if e { 'e' } else { 'f' }, None);
    if e {
        // e-07 -> e-7, as encoding/json does.
        let b = s.as_bytes();
        let n = b.len();
        if n >= 4 && b[n - 4] == b'e' && b[n - 3] == b'-' && b[n - 2] == b'0' {
            let last = s.pop().unwrap_or('0');
            s.pop();
            s.push(last);
        }
    }
    s
}

fn json_string(out: &mut String, s: &str, escape_html: bool) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '<' | '>' | '&' if escape_html => out.push_str(&format!("\\u{:04x}", c as u32)),
            '\u{2028}' | '\u{2029}' => out.push_str(&format!("\\u{:04x}", c as u32)),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Go's `json.Marshal` (indent: `MarshalIndent` with "" and that indent; `escape_html`:
/// `<`, `>` and `&` escaped, as `json.Marshal` does and an `Encoder` may not), or Go's error.
pub fn to_json(v: &Value, escape_html: bool, indent: Option<&str>) -> Result<String, String> {
    let mut out = String::new();
    write_json(&mut out, v, escape_html, indent, 0)?;
    Ok(out)
}

fn newline(out: &mut String, indent: Option<&str>, depth: usize) {
    if let Some(ind) = indent {
        out.push('\n');
        for _ in 0..depth {
            out.push_str(ind);
        }
    }
}

fn write_json(
    out: &mut String,
    v: &Value,
    html: bool,
    indent: Option<&str>,
    depth: usize,
) -> Result<(), String> {
    if depth > 1000 {
        return Err("json: unsupported value: encountered a cycle".into());
    }
    match v {
        Value::Nil => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => out.push_str(&i.to_string()),
        Value::Float(f) => {
            if !f.is_finite() {
                return Err(format!(
                    "json: unsupported value: {}",
                    gofmt::format_float_v(*f)
                ));
            }
            out.push_str(&json_float(*f));
        }
        Value::String(s) => json_string(out, s, html),
        // encoding/json writes a []byte as its base64 text.
        Value::Bytes(b) => json_string(
            out,
            &base64::engine::general_purpose::STANDARD.encode(b),
            html,
        ),
        Value::List(l) => {
            if l.is_empty() {
                out.push_str("[]");
                return Ok(());
            }
            out.push('[');
            for (k, x) in l.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                newline(out, indent, depth + 1);
                write_json(out, x, html, indent, depth + 1)?;
            }
            newline(out, indent, depth);
            out.push(']');
        }
        Value::Map(m) => {
            let entries = m.entries();
            if entries.is_empty() {
                out.push_str("{}");
                return Ok(());
            }
            out.push('{');
            for (k, (key, x)) in entries.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                newline(out, indent, depth + 1);
                json_string(out, key, html);
                out.push(':');
                if indent.is_some() {
                    out.push(' ');
                }
                write_json(out, x, html, indent, depth + 1)?;
            }
            newline(out, indent, depth);
            out.push('}');
        }
        Value::Object(o) => match o.to_value() {
            Some(v) => write_json(out, &v, html, indent, depth + 1)?,
            None => out.push_str("{}"),
        },
    }
    Ok(())
}

/// Go's `encoding/base64` error for the first byte that does not decode.
pub(crate) fn b64_error(s: &str) -> String {
    let b = s.as_bytes();
    let valid = |c: u8| c.is_ascii_alphanumeric() || c == b'+' || c == b'/';
    let mut pos = b
        .iter()
        .position(|&c| !valid(c) && c != b'=' && c != b'\n' && c != b'\r');
    if pos.is_none() {
        pos = b.iter().position(|&c| c == b'=').or(Some(b.len()));
    }
    format!("illegal base64 data at input byte {}", pos.unwrap_or(0))
}

pub(super) fn register(f: &mut Functions) {
    fixed(f, "b64enc", &[Str], |_, a| {
        Ok(base64::engine::general_purpose::STANDARD
            .encode(s(&a[0]))
            .into())
    });
    fixed(f, "b64dec", &[Str], |_, a| {
        let input: String = s(&a[0])
            .chars()
            .filter(|c| *c != '\n' && *c != '\r')
            .collect();
        Ok(
            match base64::engine::general_purpose::STANDARD.decode(&input) {
                Ok(d) => String::from_utf8_lossy(&d).into_owned().into(),
                Err(_) => b64_error(s(&a[0])).into(),
            },
        )
    });
    fixed(f, "b32enc", &[Str], |_, a| {
        Ok(data_encoding::BASE32.encode(s(&a[0]).as_bytes()).into())
    });
    fixed(f, "b32dec", &[Str], |_, a| {
        Ok(match data_encoding::BASE32.decode(s(&a[0]).as_bytes()) {
            Ok(d) => String::from_utf8_lossy(&d).into_owned().into(),
            Err(e) => format!("illegal base32 data at input byte {}", e.position).into(),
        })
    });
    fixed(f, "sha1sum", &[Str], |_, a| {
        let d = ring::digest::digest(&ring::digest::SHA1_FOR_LEGACY_USE_ONLY, s(&a[0]).as_bytes());
        Ok(hex(d.as_ref()).into())
    });
    fixed(f, "sha256sum", &[Str], |_, a| {
        Ok(hex(&sha2::Sha256::digest(s(&a[0]).as_bytes())).into())
    });
    fixed(f, "sha512sum", &[Str], |_, a| {
        Ok(hex(&sha2::Sha512::digest(s(&a[0]).as_bytes())).into())
    });
    fixed(f, "adler32sum", &[Str], |_, a| {
        let mut h = adler2::Adler32::new();
        h.write_slice(s(&a[0]).as_bytes());
        Ok(h.checksum().to_string().into())
    });
    for name in ["toJson", "mustToJson"] {
        fixed(f, name, &[Any], |_, a| match to_json(&a[0], true, None) {
            Ok(s) => Ok(s.into()),
            Err(_) => Ok("".into()),
        });
    }
    fixed(f, "toPrettyJson", &[Any], |_, a| {
        Ok(to_json(&a[0], true, Some("  ")).unwrap_or_default().into())
    });
    fixed(f, "mustToPrettyJson", &[Any], |_, a| {
        to_json(&a[0], true, Some("  "))
            .map(Value::from)
            .map_err(panic_err)
    });
    fixed(f, "toRawJson", &[Any], |_, a| {
        Ok(to_json(&a[0], false, None).unwrap_or_default().into())
    });
    fixed(f, "mustToRawJson", &[Any], |_, a| {
        to_json(&a[0], false, None)
            .map(Value::from)
            .map_err(panic_err)
    });
    fixed(f, "fromJson", &[Str], |_, a| {
        Ok(serde_json::from_str::<serde_json::Value>(s(&a[0]))
            .map(|j| Value::from_json(&j))
            .unwrap_or(Value::Nil))
    });
    fixed(f, "mustFromJson", &[Str], |_, a| {
        serde_json::from_str::<serde_json::Value>(s(&a[0]))
            .map(|j| Value::from_json(&j))
            .map_err(|e| panic_err(e.to_string()))
    });
}
