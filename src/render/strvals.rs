//! `--set` as Helm reads it: `a.b=c`, lists `a[0]=x` and `a={x,y}`, several pairs separated by
//! commas, `\` escaping any character. Values are typed: `true`/`false`/`null` (any case), and
//! integers without a leading zero, become those; everything else is a string.

use serde_json::{Map, Value};
use thiserror::Error;

use super::values::Values;

#[derive(Debug, Error, PartialEq)]
#[error("failed parsing --set data: {0}")]
pub struct SetError(pub String);

/// Helm refuses list indexes above this.
pub const MAX_INDEX: usize = 65536;
/// And names nested deeper than this.
pub const MAX_NESTING: usize = 30;

/// Parses one `--set` argument into `dest` (later arguments override earlier ones).
pub fn parse_into(text: &str, dest: &mut Values) -> Result<(), SetError> {
    parse(text, dest, false)
}

/// As [`parse_into`], but every value stays a string (`--set-string`, and the helm-operator's
/// `overrideValues`).
pub fn parse_into_strings(text: &str, dest: &mut Values) -> Result<(), SetError> {
    parse(text, dest, true)
}

fn parse(text: &str, dest: &mut Values, strings: bool) -> Result<(), SetError> {
    let mut parser = Parser {
        chars: text.chars().collect(),
        pos: 0,
        strings,
    };
    loop {
        match parser.key(dest, 0) {
            Ok(()) => continue,
            Err(Stop::Eof) => return Ok(()),
            Err(Stop::Error(e)) => return Err(SetError(e)),
        }
    }
}

enum Stop {
    Eof,
    Error(String),
}

fn fail<T>(message: String) -> Result<T, Stop> {
    Err(Stop::Error(message))
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
    /// Values are never typed.
    strings: bool,
}

/// The runes read up to a stop rune, which one stopped it (None at the end), with escapes.
struct Run {
    text: String,
    stop: Option<char>,
}

impl Parser {
    fn value(&self, text: &str) -> Value {
        if self.strings {
            Value::String(text.to_string())
        } else {
            typed(text)
        }
    }

    fn until(&mut self, stops: &[char]) -> Run {
        let mut text = String::new();
        while self.pos < self.chars.len() {
            let c = self.chars[self.pos];
            self.pos += 1;
            if stops.contains(&c) {
                return Run {
                    text,
                    stop: Some(c),
                };
            }
            if c == '\\' {
                if self.pos >= self.chars.len() {
                    return Run { text, stop: None };
                }
                text.push(self.chars[self.pos]);
                self.pos += 1;
                continue;
            }
            text.push(c);
        }
        Run { text, stop: None }
    }

    fn key(&mut self, data: &mut Values, nesting: usize) -> Result<(), Stop> {
        let run = self.until(&['=', '[', ',', '.']);
        let key = run.text;
        match run.stop {
            None if key.is_empty() => Err(Stop::Eof),
            None => fail(format!("key {key:?} has no value")),
            Some('[') => {
                let index = self.index()?;
                let mut list = match data.get(&key) {
                    None => Vec::new(),
                    Some(Value::Array(items)) => items.clone(),
                    Some(_) => {
                        return fail(format!(
                            "unable to parse key: interface conversion: {key} is not a list"
                        ));
                    }
                };
                let result = self.list_item(&mut list, index, nesting);
                set(data, &key, Value::Array(list));
                result
            }
            Some('=') => match self.value_list()? {
                Some(list) => {
                    set(data, &key, Value::Array(list));
                    Ok(())
                }
                None if self.pos >= self.chars.len() => {
                    set(data, &key, Value::String(String::new()));
                    Err(Stop::Eof)
                }
                None => {
                    let value = self.until(&[',']).text;
                    set(data, &key, self.value(&value));
                    Ok(())
                }
            },
            Some(',') => {
                set(data, &key, Value::String(String::new()));
                fail(format!("key {key:?} has no value (cannot end with ,)"))
            }
            Some(_) => {
                let nesting = nesting + 1;
                if nesting > MAX_NESTING {
                    return fail(format!(
                        "value name nested level is greater than maximum supported nested level of {MAX_NESTING}"
                    ));
                }
                let mut inner = match data.get(&key) {
                    Some(Value::Object(map)) => map.clone(),
                    None => Map::new(),
                    Some(_) => {
                        return fail(format!(
                            "unable to parse key: interface conversion: {key} is not a map"
                        ));
                    }
                };
                let result = self.key(&mut inner, nesting);
                if result.is_ok() && inner.is_empty() {
                    return fail(format!("key map {key:?} has no value"));
                }
                if !inner.is_empty() {
                    set(data, &key, Value::Object(inner));
                }
                result
            }
        }
    }

    fn index(&mut self) -> Result<i64, Stop> {
        let run = self.until(&[']']);
        if run.stop.is_none() {
            return Err(Stop::Eof);
        }
        run.text.parse::<i64>().map_err(|_| {
            Stop::Error(format!(
                "error parsing index: strconv.Atoi: parsing {:?}: invalid syntax",
                run.text
            ))
        })
    }

    fn list_item(&mut self, list: &mut Vec<Value>, index: i64, nesting: usize) -> Result<(), Stop> {
        if index < 0 {
            return fail(format!("negative {index} index not allowed"));
        }
        let run = self.until(&['[', '.', '=']);
        if !run.text.is_empty() {
            return fail(format!(
                "unexpected data at end of array index: {:?}",
                run.text
            ));
        }
        match run.stop {
            None => Err(Stop::Eof),
            Some('=') => {
                let value = match self.value_list()? {
                    Some(items) => Value::Array(items),
                    None if self.pos >= self.chars.len() => Value::String(String::new()),
                    None => {
                        let text = self.until(&[',']).text;
                        self.value(&text)
                    }
                };
                set_index(list, index, value)
            }
            Some('[') => {
                let next = self.index()?;
                let mut inner = match list.get(index as usize) {
                    Some(Value::Array(items)) => items.clone(),
                    _ => Vec::new(),
                };
                self.list_item(&mut inner, next, nesting)?;
                set_index(list, index, Value::Array(inner))
            }
            Some(_) => {
                let mut inner = match list.get(index as usize) {
                    Some(Value::Object(map)) => map.clone(),
                    _ => Map::new(),
                };
                self.key(&mut inner, nesting)?;
                set_index(list, index, Value::Object(inner))
            }
        }
    }

    /// `{a,b}` after `=`; `None` when the value is not a list.
    fn value_list(&mut self) -> Result<Option<Vec<Value>>, Stop> {
        if self.chars.get(self.pos) != Some(&'{') {
            return Ok(None);
        }
        self.pos += 1;
        let mut list = Vec::new();
        loop {
            let run = self.until(&[',', '}']);
            match run.stop {
                None => return fail("list must terminate with '}'".to_string()),
                Some('}') => {
                    if self.chars.get(self.pos) == Some(&',') {
                        self.pos += 1;
                    }
                    list.push(self.value(&run.text));
                    return Ok(Some(list));
                }
                Some(_) => list.push(self.value(&run.text)),
            }
        }
    }
}

fn set(data: &mut Values, key: &str, value: Value) {
    if !key.is_empty() {
        data.insert(key.to_string(), value);
    }
}

fn set_index(list: &mut Vec<Value>, index: i64, value: Value) -> Result<(), Stop> {
    if index < 0 {
        return fail(format!("negative {index} index not allowed"));
    }
    let index = index as usize;
    if index > MAX_INDEX {
        return fail(format!(
            "index of {index} is greater than maximum supported index of {MAX_INDEX}"
        ));
    }
    if list.len() <= index {
        list.resize(index + 1, Value::Null);
    }
    list[index] = value;
    Ok(())
}

fn typed(text: &str) -> Value {
    if text.eq_ignore_ascii_case("true") {
        return Value::Bool(true);
    }
    if text.eq_ignore_ascii_case("false") {
        return Value::Bool(false);
    }
    if text.eq_ignore_ascii_case("null") {
        return Value::Null;
    }
    if text == "0" {
        return Value::from(0i64);
    }
    if !text.is_empty()
        && !text.starts_with('0')
        && let Ok(n) = text.parse::<i64>()
        && !text.starts_with('+')
    {
        return Value::from(n);
    }
    Value::String(text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(text: &str) -> Value {
        let mut v = Values::new();
        parse_into(text, &mut v).unwrap();
        Value::Object(v)
    }

    #[test]
    fn string_mode_never_types_values() {
        let mut v = Values::new();
        parse_into_strings("a.b=true,n=1,l={2,null},z=", &mut v).unwrap();
        assert_eq!(
            Value::Object(v),
            json!({"a": {"b": "true"}, "n": "1", "l": ["2", "null"], "z": ""})
        );
    }

    #[test]
    fn helm_set_syntax() {
        assert_eq!(
            parse("a.b=c,n=10,z=0,o=007,t=TRUE,x=null"),
            json!({"a": {"b": "c"}, "n": 10, "z": 0, "o": "007", "t": true, "x": null})
        );
        assert_eq!(
            parse("list[1]=x,list[0].k=v,l={a,b}"),
            json!({"list": [{"k": "v"}, "x"], "l": ["a", "b"]})
        );
        assert_eq!(parse(r"a\.b=c\,d"), json!({"a.b": "c,d"}));
        assert_eq!(parse("name="), json!({"name": ""}));
        assert_eq!(parse("m[0][1]=x"), json!({"m": [[null, "x"]]}));
    }

    #[test]
    fn errors_name_the_key() {
        let mut v = Values::new();
        let err = parse_into("a", &mut v).unwrap_err();
        assert_eq!(
            err.to_string(),
            "failed parsing --set data: key \"a\" has no value"
        );
        assert!(parse_into("a[-1]=x", &mut Values::new()).is_err());
    }
}
