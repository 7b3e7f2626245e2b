//! Go's dynamic values as Helm's templates see them.
//!
//! Maps are shared and mutable like Go maps (Sprig's `set` changes the map every holder sees);
//! lists and strings are values. Numbers keep Go's distinction between `int` (template literals,
//! `len`, Sprig's integer math) and `float64` (every number decoded from YAML or JSON).

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use base64::Engine as _;

use crate::error::Error;

/// A template value.
#[derive(Clone, Default)]
pub enum Value {
    /// Go's untyped `nil` (a nil `interface{}`).
    #[default]
    Nil,
    Bool(bool),
    /// Go's `int` (also stands for `int64`: both print and compare alike).
    Int(i64),
    /// Go's `float64`.
    Float(f64),
    String(String),
    /// Go's `[]byte` (`[]uint8`), as Helm's `.Files.GetBytes` returns it: printed as a list of
    /// numbers, as text by `%s` and Sprig's `toString`, base64 in JSON and YAML.
    Bytes(Arc<[u8]>),
    /// Go's `[]interface{}`.
    List(Arc<Vec<Value>>),
    /// Go's `map[string]interface{}`: shared and mutable.
    Map(Map),
    /// A host object: a Go struct or pointer with fields and methods.
    Object(Arc<dyn Object>),
}

/// A Go `map[string]interface{}`: cloning a `Map` shares it, as assigning a Go map does.
/// A map may carry the name of a Go named map type (Helm's `.Values` is `common.Values`), which
/// `%T`, `typeOf` and Go's type assertions see; converting a map to a named type
/// ([`Map::as_named`]) shares its entries, as a Go conversion does.
#[derive(Clone, Default)]
pub struct Map {
    type_name: Option<Arc<str>>,
    entries: Arc<RwLock<BTreeMap<String, Value>>>,
}

impl Map {
    pub fn new() -> Map {
        Map::default()
    }

    pub fn from_btree(map: BTreeMap<String, Value>) -> Map {
        Map {
            type_name: None,
            entries: Arc::new(RwLock::new(map)),
        }
    }

    /// A map of a named Go map type, e.g. `common.Values`.
    pub fn named(type_name: &str, map: BTreeMap<String, Value>) -> Map {
        Map::from_btree(map).as_named(type_name)
    }

    /// The same map seen as a Go named map type (`common.Values(m)`): same entries, other type.
    pub fn as_named(&self, type_name: &str) -> Map {
        Map {
            type_name: Some(Arc::from(type_name)),
            entries: self.entries.clone(),
        }
    }

    /// The Go named type of the map, if it has one.
    pub fn type_name(&self) -> Option<&str> {
        self.type_name.as_deref()
    }

    /// Read access. Never hold it while executing template code: the template may change the map.
    pub fn read(&self) -> RwLockReadGuard<'_, BTreeMap<String, Value>> {
        // No code panics while holding the lock, so a poisoned lock still holds a whole map.
        self.entries.read().unwrap_or_else(|e| e.into_inner())
    }

    pub fn write(&self) -> RwLockWriteGuard<'_, BTreeMap<String, Value>> {
        self.entries.write().unwrap_or_else(|e| e.into_inner())
    }

    pub fn get(&self, key: &str) -> Option<Value> {
        self.read().get(key).cloned()
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.read().contains_key(key)
    }

    pub fn insert(&self, key: impl Into<String>, value: Value) {
        self.write().insert(key.into(), value);
    }

    pub fn remove(&self, key: &str) -> Option<Value> {
        self.write().remove(key)
    }

    pub fn len(&self) -> usize {
        self.read().len()
    }

    pub fn is_empty(&self) -> bool {
        self.read().is_empty()
    }

    /// The keys in Go's sorted order.
    pub fn keys(&self) -> Vec<String> {
        self.read().keys().cloned().collect()
    }

    /// A snapshot of the entries in sorted key order, safe to iterate while the map changes.
    pub fn entries(&self) -> Vec<(String, Value)> {
        self.read()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    /// Whether both are the same Go map (not merely equal).
    pub fn ptr_eq(&self, other: &Map) -> bool {
        Arc::ptr_eq(&self.entries, &other.entries)
    }
}

impl FromIterator<(String, Value)> for Map {
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(iter: I) -> Map {
        Map::from_btree(iter.into_iter().collect())
    }
}

impl fmt::Debug for Map {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.read().iter()).finish()
    }
}

/// A host object: what a Go struct, or a pointer to one, is to a template.
///
/// `.Name` on an object first looks for a method (which receives the arguments of the command),
/// then for a field; neither is Go's "can't evaluate field Name in type T".
pub trait Object: Send + Sync {
    /// Go's type name, as `%T` and error messages print it (for example `*chartutil.Files`).
    fn type_name(&self) -> String;

    /// A field's value, or `None` when the type has no such field.
    fn field(&self, _name: &str) -> Option<Value> {
        None
    }

    /// Calls a method; `None` when the type has no such method. An `Err` is reported as
    /// Go reports a method's error: `error calling NAME: ...`.
    fn call_method(&self, _name: &str, _args: &[Value]) -> Option<Result<Value, Error>> {
        None
    }

    /// Go's `%v` of the object: a `String()` method's result, or a struct's `{field ...}`.
    fn format(&self) -> String;

    /// The object's value for `toJson`, `toYaml` and deep copies, when it has one.
    fn to_value(&self) -> Option<Value> {
        None
    }

    /// The object as `Any`, for functions that take it back as its own type (Sprig's date
    /// functions keep a time's zone).
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        None
    }

    /// The map or slice the object is, when its Go type is a named map or slice with methods
    /// (Helm's `.Files` is a `map[string][]byte`): a [`Value::Map`] or [`Value::List`], which
    /// `range`, `len`, `index`, truth, `empty`, `kindOf` and `deepEqual` read as Go reads the
    /// map or slice itself. `None` for a struct or a pointer, which they refuse or take whole.
    fn underlying(&self) -> Option<Value> {
        None
    }

    /// The zero value of the elements of [`Object::underlying`]'s map: what `index` and a
    /// field lookup (under `missingkey=zero`) give for a key the map does not have. Go's `nil`
    /// for `interface {}` elements; an empty `[]byte` for Helm's `.Files`.
    fn zero_element(&self) -> Value {
        Value::Nil
    }
}

impl Value {
    pub fn str(s: impl Into<String>) -> Value {
        Value::String(s.into())
    }

    pub fn list(items: Vec<Value>) -> Value {
        Value::List(Arc::new(items))
    }

    pub fn map(map: Map) -> Value {
        Value::Map(map)
    }

    /// Go's truth: false, 0, nil, and empty strings, lists and maps are false.
    pub fn truthy(&self) -> bool {
        match self {
            Value::Nil => false,
            Value::Bool(b) => *b,
            Value::Int(i) => *i != 0,
            Value::Float(f) => *f != 0.0,
            Value::String(s) => !s.is_empty(),
            Value::Bytes(b) => !b.is_empty(),
            Value::List(l) => !l.is_empty(),
            Value::Map(m) => !m.is_empty(),
            Value::Object(o) => o.underlying().is_none_or(|u| u.truthy()),
        }
    }

    /// The value as Go's reflection sees its kind: an object that is a named map or slice
    /// ([`Object::underlying`]) as that map or slice, anything else as it is.
    pub fn underlying(&self) -> std::borrow::Cow<'_, Value> {
        match self {
            Value::Object(o) => o
                .underlying()
                .map_or(std::borrow::Cow::Borrowed(self), std::borrow::Cow::Owned),
            _ => std::borrow::Cow::Borrowed(self),
        }
    }

    /// Go's type name of the value (`%T`), as seen through an `interface{}`.
    pub fn type_name(&self) -> String {
        match self {
            Value::Nil => "<nil>".into(),
            Value::Bool(_) => "bool".into(),
            Value::Int(_) => "int".into(),
            Value::Float(_) => "float64".into(),
            Value::String(_) => "string".into(),
            Value::Bytes(_) => "[]uint8".into(),
            Value::List(_) => "[]interface {}".into(),
            Value::Map(m) => m
                .type_name()
                .unwrap_or("map[string]interface {}")
                .to_string(),
            Value::Object(o) => o.type_name(),
        }
    }

    /// Go's reflect kind name (Sprig's `kindOf`).
    pub fn kind_name(&self) -> &'static str {
        match self {
            Value::Nil => "invalid",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Float(_) => "float64",
            Value::String(_) => "string",
            Value::List(_) | Value::Bytes(_) => "slice",
            Value::Map(_) => "map",
            Value::Object(o) => {
                if let Some(underlying) = o.underlying() {
                    underlying.kind_name()
                } else if o.type_name().starts_with('*') {
                    "ptr"
                } else {
                    "struct"
                }
            }
        }
    }

    pub fn is_nil(&self) -> bool {
        matches!(self, Value::Nil)
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_map(&self) -> Option<&Map> {
        match self {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    pub fn bytes(b: impl Into<Arc<[u8]>>) -> Value {
        Value::Bytes(b.into())
    }

    /// The elements of a `[]byte` as Go's reflection sees them, one number per byte (Go's are
    /// `uint8`s; here they are ints).
    pub fn byte_items(b: &[u8]) -> Vec<Value> {
        b.iter().map(|&x| Value::Int(i64::from(x))).collect()
    }

    pub fn as_list(&self) -> Option<&[Value]> {
        match self {
            Value::List(l) => Some(l),
            _ => None,
        }
    }

    /// Whether lists and maps (and host objects' values) nest deeper than `limit` inside this
    /// value. Iterative, so that encoders can refuse a value nested too deep for their
    /// recursion before they start.
    pub fn nested_deeper_than(&self, limit: usize) -> bool {
        let mut pending: Vec<(Value, usize)> = vec![(self.clone(), 0)];
        while let Some((v, depth)) = pending.pop() {
            let children: Vec<Value> = match &v {
                Value::List(l) => l.iter().filter(|x| is_container(x)).cloned().collect(),
                Value::Map(m) => m
                    .read()
                    .values()
                    .filter(|x| is_container(x))
                    .cloned()
                    .collect(),
                Value::Object(o) => o.to_value().into_iter().collect(),
                _ => Vec::new(),
            };
            if !children.is_empty() && depth + 1 > limit {
                return true;
            }
            pending.extend(children.into_iter().map(|c| (c, depth + 1)));
        }
        false
    }

    /// A copy that shares nothing with the original (Sprig's `deepCopy`).
    pub fn deep_clone(&self) -> Value {
        match self {
            Value::List(l) => Value::list(l.iter().map(Value::deep_clone).collect()),
            Value::Map(m) => {
                let copy: BTreeMap<String, Value> = m
                    .read()
                    .iter()
                    .map(|(k, v)| (k.clone(), v.deep_clone()))
                    .collect();
                Value::Map(match m.type_name() {
                    Some(t) => Map::named(t, copy),
                    None => Map::from_btree(copy),
                })
            }
            other => other.clone(),
        }
    }

    /// Go's `reflect.DeepEqual` on the values (an `int` never equals a `float64`).
    pub fn deep_equal(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Nil, Value::Nil) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => a == b,
            (Value::String(a), Value::String(b)) => a == b,
            (Value::Bytes(a), Value::Bytes(b)) => a == b,
            (Value::List(a), Value::List(b)) => {
                a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| x.deep_equal(y))
            }
            (Value::Map(a), Value::Map(b)) => {
                if a.ptr_eq(b) {
                    return true;
                }
                let (a, b) = (a.entries(), b.entries());
                a.len() == b.len()
                    && a.iter()
                        .zip(b.iter())
                        .all(|((ka, va), (kb, vb))| ka == kb && va.deep_equal(vb))
            }
            (Value::Object(a), Value::Object(b)) => {
                Arc::ptr_eq(a, b)
                    || (a.type_name() == b.type_name()
                        && matches!((a.underlying(), b.underlying()),
                            (Some(x), Some(y)) if x.deep_equal(&y)))
            }
            _ => false,
        }
    }

    /// From JSON, as Go's `encoding/json` decodes into `interface{}`: every number a `float64`.
    pub fn from_json(json: &serde_json::Value) -> Value {
        match json {
            serde_json::Value::Null => Value::Nil,
            serde_json::Value::Bool(b) => Value::Bool(*b),
            serde_json::Value::Number(n) => Value::Float(n.as_f64().unwrap_or(0.0)),
            serde_json::Value::String(s) => Value::String(s.clone()),
            serde_json::Value::Array(a) => Value::list(a.iter().map(Value::from_json).collect()),
            serde_json::Value::Object(o) => Value::Map(
                o.iter()
                    .map(|(k, v)| (k.clone(), Value::from_json(v)))
                    .collect(),
            ),
        }
    }

    /// To JSON; host objects become their [`Object::to_value`] or `null`. Non-finite floats
    /// (which Go's encoder refuses) become `null`.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Value::Nil => serde_json::Value::Null,
            Value::Bool(b) => serde_json::Value::Bool(*b),
            Value::Int(i) => serde_json::Value::from(*i),
            Value::Float(f) => serde_json::Number::from_f64(*f)
                .map(serde_json::Value::Number)
                .unwrap_or(serde_json::Value::Null),
            Value::String(s) => serde_json::Value::String(s.clone()),
            // Go's encoding/json writes a []byte as its base64 text.
            Value::Bytes(b) => {
                serde_json::Value::String(base64::engine::general_purpose::STANDARD.encode(b))
            }
            Value::List(l) => serde_json::Value::Array(l.iter().map(Value::to_json).collect()),
            Value::Map(m) => serde_json::Value::Object(
                m.read()
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_json()))
                    .collect(),
            ),
            Value::Object(o) => o
                .to_value()
                .map(|v| v.to_json())
                .unwrap_or(serde_json::Value::Null),
        }
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Nil => write!(f, "nil"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Float(x) => write!(f, "{x:?}"),
            Value::String(s) => write!(f, "{s:?}"),
            Value::Bytes(b) => write!(f, "{b:?}"),
            Value::List(l) => f.debug_list().entries(l.iter()).finish(),
            Value::Map(m) => m.fmt(f),
            Value::Object(o) => write!(f, "{}({})", o.type_name(), o.format()),
        }
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}
impl From<i64> for Value {
    fn from(i: i64) -> Value {
        Value::Int(i)
    }
}
impl From<i32> for Value {
    fn from(i: i32) -> Value {
        Value::Int(i64::from(i))
    }
}
impl From<usize> for Value {
    fn from(i: usize) -> Value {
        Value::Int(i64::try_from(i).unwrap_or(i64::MAX))
    }
}
impl From<f64> for Value {
    fn from(f: f64) -> Value {
        Value::Float(f)
    }
}
impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::String(s.to_string())
    }
}
impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::String(s)
    }
}
impl From<Vec<Value>> for Value {
    fn from(l: Vec<Value>) -> Value {
        Value::list(l)
    }
}
impl From<Vec<u8>> for Value {
    fn from(b: Vec<u8>) -> Value {
        Value::Bytes(b.into())
    }
}
impl From<Map> for Value {
    fn from(m: Map) -> Value {
        Value::Map(m)
    }
}
impl From<&serde_json::Value> for Value {
    fn from(j: &serde_json::Value) -> Value {
        Value::from_json(j)
    }
}

/// Dropping a value nested deeper than the stack allows (a list a template wrapped in itself
/// 100000 times) must not overflow the stack: the compiler's drop recurses once per level, so
/// a value whose lists or maps hold lists or maps is taken apart here, its nested containers
/// kept on a heap stack, each emptied before it is dropped. Shared containers (another holder
/// keeps them) are left alone: only their last holder drops them.
impl Drop for Value {
    fn drop(&mut self) {
        if !has_nested_containers(self) {
            return;
        }
        let mut pending: Vec<Value> = Vec::new();
        take_children(self, &mut pending);
        while let Some(mut v) = pending.pop() {
            take_children(&mut v, &mut pending);
            // `v` has no children left that it alone holds: dropping it recurses no further.
        }
    }
}

fn is_container(v: &Value) -> bool {
    matches!(v, Value::List(_) | Value::Map(_) | Value::Object(_))
}

fn has_nested_containers(v: &Value) -> bool {
    match v {
        Value::List(l) => Arc::strong_count(l) == 1 && l.iter().any(is_container),
        Value::Map(m) => Arc::strong_count(&m.entries) == 1 && m.read().values().any(is_container),
        _ => false,
    }
}

/// Moves the nested containers that `v` alone holds into `pending`.
fn take_children(v: &mut Value, pending: &mut Vec<Value>) {
    match v {
        Value::List(l) => {
            if let Some(items) = Arc::get_mut(l) {
                pending.extend(items.drain(..).filter(is_container));
            }
        }
        Value::Map(m) => {
            if let Some(lock) = Arc::get_mut(&mut m.entries) {
                let entries = lock.get_mut().unwrap_or_else(|e| e.into_inner());
                pending.extend(std::mem::take(entries).into_values().filter(is_container));
            }
        }
        _ => {}
    }
}
