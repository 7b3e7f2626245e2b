//! Kubernetes' protobuf request bodies, for the kinds real clients send that way: client-go's
//! typed clientsets (Helm's Secret storage driver among them) write built-in kinds as
//! `application/vnd.kubernetes.protobuf`, which a real API server accepts.
//!
//! Approximation: only Secrets and ConfigMaps (Helm's two Kubernetes storage drivers) and
//! DeleteOptions are decoded, with the ObjectMeta fields clients set on writes (name, generateName, namespace,
//! resourceVersion, labels, annotations, finalizers); other fields are skipped. Responses stay
//! JSON, which clients accept because they always list `application/json` too.

use serde_json::{Map, Value, json};

const MAGIC: &[u8] = b"k8s\0";

pub fn is_protobuf(body: &[u8]) -> bool {
    body.starts_with(MAGIC)
}

/// The JSON object of a protobuf-encoded body (the `runtime.Unknown` envelope and its object).
pub fn to_json(body: &[u8]) -> Result<Value, String> {
    let envelope = fields(&body[MAGIC.len()..])?;
    let mut api_version = String::new();
    let mut kind = String::new();
    let mut raw: &[u8] = &[];
    for (number, value) in envelope {
        match (number, value) {
            (1, Field::Bytes(type_meta)) => {
                for (n, v) in fields(type_meta)? {
                    match (n, v) {
                        (1, Field::Bytes(b)) => api_version = text(b)?,
                        (2, Field::Bytes(b)) => kind = text(b)?,
                        _ => {}
                    }
                }
            }
            (2, Field::Bytes(b)) => raw = b,
            _ => {}
        }
    }
    let mut object = Map::new();
    object.insert("apiVersion".into(), json!(api_version));
    object.insert("kind".into(), json!(kind));
    match kind.as_str() {
        "Secret" | "ConfigMap" => {
            for (number, value) in fields(raw)? {
                let Field::Bytes(b) = value else { continue };
                match (kind.as_str(), number) {
                    (_, 1) => {
                        object.insert("metadata".into(), object_meta(b)?);
                    }
                    ("Secret", 2) => insert_entry(&mut object, "data", b, true)?,
                    ("Secret", 3) => {
                        object.insert("type".into(), json!(text(b)?));
                    }
                    ("Secret", 4) | ("ConfigMap", 2) => {
                        insert_entry(&mut object, "stringData", b, false)?
                    }
                    ("ConfigMap", 3) => insert_entry(&mut object, "binaryData", b, true)?,
                    _ => {}
                }
            }
            if kind == "ConfigMap"
                && let Some(data) = object.remove("stringData")
            {
                object.insert("data".into(), data);
            }
            Ok(Value::Object(object))
        }
        "DeleteOptions" => {
            for (number, value) in fields(raw)? {
                match (number, value) {
                    (1, Field::Varint(seconds)) => {
                        object.insert("gracePeriodSeconds".into(), json!(seconds as i64));
                    }
                    (4, Field::Bytes(b)) => {
                        object.insert("propagationPolicy".into(), json!(text(b)?));
                    }
                    (5, Field::Bytes(b)) => {
                        let list = object.entry("dryRun").or_insert_with(|| json!([]));
                        if let Value::Array(items) = list {
                            items.push(json!(text(b)?));
                        }
                    }
                    _ => {}
                }
            }
            Ok(Value::Object(object))
        }
        other => Err(format!(
            "the test server decodes protobuf bodies of Secrets, ConfigMaps and DeleteOptions only, not of {other:?}"
        )),
    }
}

fn object_meta(bytes: &[u8]) -> Result<Value, String> {
    let mut meta = Map::new();
    for (number, value) in fields(bytes)? {
        let Field::Bytes(b) = value else { continue };
        match number {
            1 => {
                meta.insert("name".into(), json!(text(b)?));
            }
            2 => {
                meta.insert("generateName".into(), json!(text(b)?));
            }
            3 => {
                meta.insert("namespace".into(), json!(text(b)?));
            }
            6 => {
                meta.insert("resourceVersion".into(), json!(text(b)?));
            }
            11 => insert_entry(&mut meta, "labels", b, false)?,
            12 => insert_entry(&mut meta, "annotations", b, false)?,
            14 => {
                let list = meta.entry("finalizers").or_insert_with(|| json!([]));
                if let Value::Array(items) = list {
                    items.push(json!(text(b)?));
                }
            }
            _ => {}
        }
    }
    Ok(Value::Object(meta))
}

/// One map entry (key 1, value 2) into `object[field]`; bytes values become base64 as in JSON.
fn insert_entry(
    object: &mut Map<String, Value>,
    field: &str,
    entry: &[u8],
    bytes: bool,
) -> Result<(), String> {
    use base64::Engine as _;
    let mut key = String::new();
    let mut value = Value::String(String::new());
    for (n, v) in fields(entry)? {
        match (n, v) {
            (1, Field::Bytes(b)) => key = text(b)?,
            (2, Field::Bytes(b)) if bytes => {
                value = json!(base64::engine::general_purpose::STANDARD.encode(b))
            }
            (2, Field::Bytes(b)) => value = json!(text(b)?),
            _ => {}
        }
    }
    let map = object.entry(field).or_insert_with(|| json!({}));
    if let Value::Object(m) = map {
        m.insert(key, value);
    }
    Ok(())
}

enum Field<'a> {
    Varint(u64),
    Bytes(&'a [u8]),
    Fixed,
}

fn text(bytes: &[u8]) -> Result<String, String> {
    String::from_utf8(bytes.to_vec()).map_err(|_| "a protobuf string is not UTF-8".to_string())
}

fn varint(bytes: &[u8], at: &mut usize) -> Result<u64, String> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *bytes.get(*at).ok_or("a truncated protobuf varint")?;
        *at += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err("a protobuf varint longer than 10 bytes".to_string())
}

/// The fields of one message, in order.
fn fields(bytes: &[u8]) -> Result<Vec<(u64, Field<'_>)>, String> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let tag = varint(bytes, &mut at)?;
        let field = match tag & 7 {
            0 => Field::Varint(varint(bytes, &mut at)?),
            1 => {
                at += 8;
                Field::Fixed
            }
            2 => {
                let len = usize::try_from(varint(bytes, &mut at)?).map_err(|e| e.to_string())?;
                let end = at
                    .checked_add(len)
                    .filter(|e| *e <= bytes.len())
                    .ok_or("a truncated protobuf field")?;
                let b = &bytes[at..end];
                at = end;
                Field::Bytes(b)
            }
            5 => {
                at += 4;
                Field::Fixed
            }
            other => return Err(format!("protobuf wire type {other} is not supported")),
        };
        if at > bytes.len() {
            return Err("a truncated protobuf field".to_string());
        }
        out.push((tag >> 3, field));
    }
    Ok(out)
}
