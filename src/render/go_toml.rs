//! Helm's `toToml` and `fromToml`. Helm uses BurntSushi/toml v1: its encoder's layout is what
//! charts get (keys sorted, plain values before tables, a blank line before each top-level table
//! and each `[[array]]` entry, nested tables indented two spaces a level, floats in Go's `%g`
//! with `.0` added), so the encoder is written here to that layout. Parsing uses the `toml`
//! crate; its error text is not BurntSushi's, only the `toml: line N` prefix is.

use gotemplate::{Map, Value};

const NIL_IN_ARRAY: &str = "toml: cannot encode array with nil element";
const NO_KEY: &str = "toml: top-level values must be Go maps or structs";
const INDENT: &str = "  ";

/// Helm's `toToml`: the document, or the encoder's error text (Helm returns it as the output).
pub fn to_toml(value: &Value) -> Result<String, String> {
    if value.is_nil() {
        // Helm hands the encoder a nil interface, on which reflection panics.
        return Err("reflect: call of reflect.Value.Type on zero Value".into());
    }
    if value.nested_deeper_than(super::go_json::MAX_DEPTH) {
        return Err(super::go_json::too_deep());
    }
    let mut enc = Encoder { out: String::new() };
    enc.encode(&[], value)?;
    Ok(enc.out)
}

#[derive(PartialEq)]
enum Kind {
    Table,
    ArrayOfTables,
    Plain,
}

/// The encoder's `tomlTypeOfGo`, as far as tables go; arrays with a nil anywhere are refused.
fn kind(v: &Value) -> Result<Kind, String> {
    Ok(match v {
        Value::Map(_) => Kind::Table,
        Value::Object(o) => match o.to_value() {
            Some(inner) => kind(&inner)?,
            None => Kind::Table,
        },
        Value::List(items) => {
            let mut all_tables = !items.is_empty();
            for item in items.iter() {
                if item.is_nil() {
                    return Err(NIL_IN_ARRAY.into());
                }
                if kind(item)? != Kind::Table {
                    all_tables = false;
                }
            }
            if all_tables {
                Kind::ArrayOfTables
            } else {
                Kind::Plain
            }
        }
        _ => Kind::Plain,
    })
}

fn entries(v: &Value) -> Vec<(String, Value)> {
    match v {
        Value::Map(m) => m.entries(),
        Value::Object(o) => match o.to_value() {
            Some(Value::Map(ref m)) => m.entries(),
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

fn bare(part: &str) -> bool {
    part.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn maybe_quoted(part: &str) -> String {
    if part.is_empty() {
        r#""""#.into()
    } else if bare(part) {
        part.into()
    } else {
        quoted(part)
    }
}

fn key_string(key: &[String]) -> String {
    key.iter()
        .map(|k| maybe_quoted(k))
        .collect::<Vec<_>>()
        .join(".")
}

/// The encoder's double-quoted string: named escapes, `\uXXXX` for other controls and DEL.
fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn float(f: f64) -> String {
    if f.is_nan() {
        return if f.is_sign_negative() { "-nan" } else { "nan" }.into();
    }
    if f.is_infinite() {
        return if f < 0.0 { "-inf" } else { "inf" }.into();
    }
    let s = gotemplate::gofmt::format_float(f, 'g', None);
    // TOML floats need a fraction or an exponent.
    if s.contains(['e', '.']) { s } else { s + ".0" }
}

struct Encoder {
    out: String,
}

impl Encoder {
    fn newline(&mut self) {
        if !self.out.is_empty() {
            self.out.push('\n');
        }
    }

    fn indent(&mut self, key: &[String]) {
        for _ in 1..key.len() {
            self.out.push_str(INDENT);
        }
    }

    fn encode(&mut self, key: &[String], v: &Value) -> Result<(), String> {
        match kind(v)? {
            _ if v.is_nil() => Ok(()),
            Kind::Table => self.table(key, v),
            Kind::ArrayOfTables => {
                if key.is_empty() {
                    return Err(NO_KEY.into());
                }
                for item in v.as_list().unwrap_or_default() {
                    self.newline();
                    self.indent(key);
                    self.out.push_str(&format!("[[{}]]", key_string(key)));
                    self.newline();
                    self.map(key, item, false)?;
                }
                Ok(())
            }
            Kind::Plain => self.key_value(key, v, false),
        }
    }

    fn table(&mut self, key: &[String], v: &Value) -> Result<(), String> {
        if key.len() == 1 {
            self.newline();
        }
        if !key.is_empty() {
            self.indent(key);
            self.out.push_str(&format!("[{}]", key_string(key)));
            self.newline();
        }
        self.map(key, v, false)
    }

    /// Plain keys first, then tables, each group sorted; nil values are left out.
    fn map(&mut self, key: &[String], v: &Value, inline: bool) -> Result<(), String> {
        let mut direct = Vec::new();
        let mut sub = Vec::new();
        for (k, val) in entries(v) {
            if kind(&val)? == Kind::Plain {
                direct.push((k, val));
            } else {
                sub.push((k, val));
            }
        }
        if inline {
            self.out.push('{');
        }
        let trailing_comma = !sub.is_empty();
        for (group, trail) in [(direct, trailing_comma), (sub, false)] {
            let last = group.len().saturating_sub(1);
            for (i, (k, val)) in group.iter().enumerate() {
                if val.is_nil() {
                    continue;
                }
                if inline {
                    self.key_value(std::slice::from_ref(k), val, true)?;
                    if trail || i != last {
                        self.out.push_str(", ");
                    }
                } else {
                    let mut path = key.to_vec();
                    path.push(k.clone());
                    self.encode(&path, val)?;
                }
            }
        }
        if inline {
            self.out.push('}');
        }
        Ok(())
    }

    fn key_value(&mut self, key: &[String], v: &Value, inline: bool) -> Result<(), String> {
        if let Some(last) = key.last() {
            self.indent(key);
            self.out.push_str(&maybe_quoted(last));
            self.out.push_str(" = ");
        }
        self.element(v)?;
        if !key.is_empty() && !inline {
            self.newline();
        }
        Ok(())
    }

    fn element(&mut self, v: &Value) -> Result<(), String> {
        match v {
            Value::Nil => return Err(NIL_IN_ARRAY.into()),
            Value::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            Value::Int(i) => self.out.push_str(&i.to_string()),
            Value::Float(f) => self.out.push_str(&float(*f)),
            Value::String(s) => self.out.push_str(&quoted(s)),
            // The encoder sees a []byte as an array of integers.
            Value::Bytes(b) => {
                let numbers: Vec<String> = b.iter().map(u8::to_string).collect();
                self.out.push('[');
                self.out.push_str(&numbers.join(", "));
                self.out.push(']');
            }
            Value::List(items) => {
                self.out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.element(item)?;
                }
                self.out.push(']');
            }
            Value::Map(_) => self.map(&[], v, true)?,
            Value::Object(o) => match o.to_value() {
                Some(inner) => self.element(&inner)?,
                None => self.out.push_str("{}"),
            },
        }
        Ok(())
    }
}

/// Helm's `fromToml`: the document's table, or a map holding only `Error`.
pub fn from_toml(text: &str) -> Value {
    match text.parse::<toml::Table>() {
        Ok(table) => Value::Map(table_value(&table)),
        Err(e) => {
            let map = Map::new();
            map.insert("Error", Value::String(parse_error(text, &e)));
            Value::Map(map)
        }
    }
}

fn parse_error(text: &str, e: &toml::de::Error) -> String {
    let line = e
        .span()
        .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1)
        .unwrap_or(1);
    let message = e.message().lines().next().unwrap_or_default().to_string();
    format!("toml: line {line}: {message}")
}

fn table_value(table: &toml::Table) -> Map {
    table
        .iter()
        .map(|(k, v)| (k.clone(), toml_value(v)))
        .collect()
}

/// A TOML date-time as the Go TOML reader Helm uses gives it: a `time.Time`; a local date,
/// date-time or time in a zone of that name at UTC's offset, a time alone on 0000-01-01.
fn toml_datetime(d: &toml::value::Datetime) -> Value {
    let mut at = gotemplate::sprig::Civil {
        month: 1,
        day: 1,
        ..Default::default()
    };
    if let Some(date) = d.date {
        at.year = i64::from(date.year);
        at.month = u32::from(date.month);
        at.day = u32::from(date.day);
    }
    if let Some(time) = d.time {
        at.hour = i64::from(time.hour);
        at.minute = i64::from(time.minute);
        at.second = i64::from(time.second);
        at.nanos = time.nanosecond;
    }
    let offset = d.offset.map(|offset| match offset {
        toml::value::Offset::Z => 0,
        toml::value::Offset::Custom { minutes } => i32::from(minutes) * 60,
    });
    let local_zone = match (d.date, d.time) {
        (Some(_), Some(_)) => "datetime-local",
        (Some(_), None) => "date-local",
        _ => "time-local",
    };
    gotemplate::sprig::toml_time(at, offset, local_zone)
}

fn toml_value(v: &toml::Value) -> Value {
    match v {
        toml::Value::String(s) => Value::String(s.clone()),
        toml::Value::Integer(i) => Value::Int(*i),
        toml::Value::Float(f) => Value::Float(*f),
        toml::Value::Boolean(b) => Value::Bool(*b),
        // Go decodes a time.Time; its text (what toJson shows for an offset date-time) stands
        // in for it.
        toml::Value::Datetime(d) => toml_datetime(d),
        toml::Value::Array(items) => Value::list(items.iter().map(toml_value).collect()),
        toml::Value::Table(t) => Value::Map(table_value(t)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: Vec<(&str, Value)>) -> Value {
        Value::Map(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    }

    #[test]
    fn the_layout_is_burntsushis() {
        // The output real Helm 4 gave for this value (dict "a" 1 "f" 1000000.0 ...).
        let doc = map(vec![
            ("a", Value::Int(1)),
            ("f", Value::Float(1e6)),
            ("g", Value::Float(0.5)),
            ("s", Value::str("x\"y")),
            (
                "t",
                map(vec![
                    ("b", Value::Int(2)),
                    ("u", map(vec![("c", Value::Int(3))])),
                    (
                        "l",
                        Value::list(vec![
                            map(vec![("z", Value::Int(1))]),
                            map(vec![("z", Value::Int(2))]),
                        ]),
                    ),
                ]),
            ),
            ("arr", Value::list(vec![Value::Int(1), Value::str("two")])),
            ("e", Value::list(vec![])),
            ("q k", Value::Bool(true)),
            ("n", Value::Nil),
        ]);
        assert_eq!(
            to_toml(&doc).unwrap(),
            "a = 1\narr = [1, \"two\"]\ne = []\nf = 1e+06\ng = 0.5\n\"q k\" = true\ns = \"x\\\"y\"\n\n[t]\n  b = 2\n\n  [[t.l]]\n    z = 1\n\n  [[t.l]]\n    z = 2\n  [t.u]\n    c = 3\n"
        );
        // Values from YAML are float64: `port: 80` is `80.0`.
        let values = map(vec![
            ("port", Value::Float(80.0)),
            ("name", Value::str("web")),
            (
                "nested",
                map(vec![
                    (
                        "list",
                        Value::list(vec![Value::Float(1.0), Value::Float(2.0)]),
                    ),
                    ("deep", map(vec![("k", Value::str("v"))])),
                ]),
            ),
        ]);
        assert_eq!(
            to_toml(&values).unwrap(),
            "name = \"web\"\nport = 80.0\n\n[nested]\n  list = [1.0, 2.0]\n  [nested.deep]\n    k = \"v\"\n"
        );
    }

    #[test]
    fn inline_tables_scalars_and_errors() {
        let mixed = map(vec![(
            "m",
            Value::list(vec![Value::Int(1), map(vec![("a", Value::str("\u{1}"))])]),
        )]);
        assert_eq!(to_toml(&mixed).unwrap(), "m = [1, {a = \"\\u0001\"}]\n");
        assert_eq!(to_toml(&Value::str("x")).unwrap(), "\"x\"");
        assert_eq!(
            to_toml(&map(vec![("l", Value::list(vec![Value::Nil]))])).unwrap_err(),
            NIL_IN_ARRAY
        );
        assert_eq!(
            to_toml(&Value::list(vec![map(vec![])])).unwrap_err(),
            NO_KEY
        );
        assert!(to_toml(&Value::Nil).is_err());
        assert_eq!(float(f64::NAN), "nan");
        assert_eq!(float(-f64::INFINITY), "-inf");
        assert_eq!(float(1e21), "1e+21");
    }

    #[test]
    fn from_toml_decodes_ints_as_ints_and_reports_errors_in_error() {
        let v = from_toml("a = 1\nb = 2.5\n[t]\nx = \"y\"\nd = 1979-05-27T07:32:00Z\n");
        let m = v.as_map().unwrap();
        assert!(matches!(m.get("a"), Some(Value::Int(1))));
        assert!(matches!(m.get("b"), Some(Value::Float(f)) if f == 2.5));
        let t = m.get("t").unwrap();
        let t = t.as_map().unwrap();
        // A date-time is a Go time.Time, as the TOML reader Helm uses gives it.
        let d = t.get("d").unwrap();
        assert!(
            matches!(&d, Value::Object(o) if o.type_name() == "time.Time"),
            "{d}"
        );
        assert_eq!(d.to_string(), "1979-05-27 07:32:00 +0000 UTC");
        let err = from_toml("a = 1\na = 2");
        let text = err.as_map().unwrap().get("Error").unwrap();
        assert!(
            text.as_str().unwrap().starts_with("toml: line 2: "),
            "{text}"
        );
    }
}
