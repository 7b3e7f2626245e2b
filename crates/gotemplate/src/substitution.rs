//! Would an execution have gone the same way had one string in its data been another?
//!
//! A host that renders the same templates twice, with data that differ only in one string
//! (Helm's Kubernetes version, `v1.36.0` or `v1.33.0`), can render once and ask this instead.
//! The execution follows every string that holds `from`: a function given one is run again
//! with `to` in its place, and the check holds only if the result is the first result with
//! `from` replaced (`semverCompare "<1.25-0"` answers alike for both; `trimPrefix "v"` does
//! not). Whatever cannot be followed breaks the check: a function with effects or of unknown
//! effects given such a string, a map key or template name holding one, a method call on a
//! host object with one, a function given a host object that prints one (the object cannot be
//! replaced), or the text the execution prints holding one.
//!
//! What a host object answers is the host's business: a field whose value differs between
//! the two data without holding `from` must be reported by the host itself. So is making sure
//! `from` comes only from the data substituted: a template that writes `from` itself (to
//! compare with it) would have its text taken for the substituted string.

use crate::error::Error;
use crate::funcs::Effects;
use crate::value::{Map, Value};

/// Values nested deeper than this are not searched (a map may hold itself): the check gives up.
const MAX_DEPTH: usize = 64;

/// The question, and its answer once the execution is over.
#[derive(Debug, Clone)]
pub struct Substitution {
    from: String,
    to: String,
    broken_by: Option<String>,
}

#[derive(PartialEq)]
enum Found {
    No,
    Yes,
    /// Somewhere it cannot be searched or replaced: nested too deep, or a host object that
    /// prints `from` (what it answers for the other string, only the host knows).
    Lost,
}

impl Substitution {
    /// `None` when `from` or `to` is empty or both are the same: a string holding either
    /// must stay non-empty (truthy alike) and the question must have two sides.
    pub fn new(from: &str, to: &str) -> Option<Substitution> {
        if from.is_empty() || to.is_empty() || from == to {
            return None;
        }
        Some(Substitution {
            from: from.to_string(),
            to: to.to_string(),
            broken_by: None,
        })
    }

    /// Whether everything the executions watched so far would have gone the same way.
    pub fn holds(&self) -> bool {
        self.broken_by.is_none()
    }

    /// The first thing seen that could have gone otherwise.
    pub fn broken_by(&self) -> Option<&str> {
        self.broken_by.as_deref()
    }

    /// Records what could have gone otherwise (the first such thing is kept), the message
    /// made from `from` and `to`.
    fn break_because(&mut self, why: impl FnOnce(&str, &str) -> String) {
        if self.broken_by.is_none() {
            let why = why(&self.from, &self.to);
            self.broken_by = Some(why);
        }
    }

    /// Whether `text` holds `from`.
    fn in_text(&self, text: &str) -> bool {
        self.in_bytes(text.as_bytes())
    }

    fn in_bytes(&self, bytes: &[u8]) -> bool {
        memchr::memmem::find(bytes, self.from.as_bytes()).is_some()
    }

    /// Text an execution printed: holding `from`, it would have printed otherwise.
    pub(crate) fn printed(&mut self, template: &str, text: &str) {
        if self.in_text(text) {
            self.break_because(|from, _| format!("{template} prints {from:?}"));
        }
    }

    /// A map about to be ranged over: its keys set the order.
    pub(crate) fn ranged_over(&mut self, keys: impl Iterator<Item = String>) {
        for key in keys {
            if self.in_text(&key) {
                self.break_because(|_, _| format!("a range over a map with the key {key:?}"));
            }
        }
    }

    /// A method of a host object called with `args`.
    pub(crate) fn method_called(&mut self, name: &str, args: &[Value]) {
        if args.iter().any(|a| self.find(a, true, 0) != Found::No) {
            self.break_because(|from, _| format!("method {name} given {from:?}"));
        }
    }

    /// A function called with `args` returned `result`; `rerun` runs it again on other
    /// arguments.
    pub(crate) fn called(
        &mut self,
        name: &str,
        effects: Effects,
        args: &[Value],
        result: &Value,
        rerun: impl FnOnce(&[Value]) -> Result<Value, Error>,
    ) {
        let deep = matches!(effects, Effects::Unknown | Effects::Pure);
        let found = args
            .iter()
            .map(|a| self.find(a, deep, 0))
            .fold(Found::No, |acc, f| match (acc, f) {
                (Found::Lost, _) | (_, Found::Lost) => Found::Lost,
                (Found::Yes, _) | (_, Found::Yes) => Found::Yes,
                _ => Found::No,
            });
        let rerunnable = matches!(effects, Effects::Pure | Effects::ShapeOnly);
        match found {
            Found::No => {}
            Found::Lost => {
                self.break_because(|from, _| {
                    format!("{name} given a value nested too deep to search, or an object that prints {from:?}")
                })
            }
            Found::Yes if !rerunnable => {
                self.break_because(|from, _| format!("{name} given {from:?}"));
            }
            Found::Yes => {
                let replaced: Vec<Value> = args.iter().map(|a| self.replace(a, deep)).collect();
                // The result may hold the arguments (`list`, `default`): compared whole.
                let same = rerun(&replaced)
                    .is_ok_and(|other| other.deep_equal(&self.replace(result, true)));
                if !same {
                    self.break_because(|from, to| {
                        format!("{name} answers otherwise for {to:?} than {from:?}")
                    });
                }
            }
        }
    }

    /// Whether `v` holds `from`: in itself, or (`deep`) anywhere inside it. A host object's
    /// fields answer for themselves; one that prints `from` cannot be followed.
    fn find(&self, v: &Value, deep: bool, depth: usize) -> Found {
        match v {
            Value::Object(o) if deep && self.in_text(&o.format()) => Found::Lost,
            Value::String(s) => found(self.in_text(s)),
            Value::Bytes(b) => found(self.in_bytes(b)),
            Value::List(_) | Value::Map(_) if !deep => Found::No,
            Value::List(_) | Value::Map(_) if depth >= MAX_DEPTH => Found::Lost,
            Value::List(items) => self.find_all(items.iter(), depth),
            Value::Map(m) => {
                let entries = m.read();
                if entries.keys().any(|k| self.in_text(k)) {
                    return Found::Yes;
                }
                self.find_all(entries.values(), depth)
            }
            _ => Found::No,
        }
    }

    fn find_all<'v>(&self, items: impl Iterator<Item = &'v Value>, depth: usize) -> Found {
        let mut any = Found::No;
        for item in items {
            match self.find(item, true, depth + 1) {
                Found::Lost => return Found::Lost,
                Found::Yes => any = Found::Yes,
                Found::No => {}
            }
        }
        any
    }

    /// `v` with `from` replaced by `to`: in itself, or (`deep`) everywhere inside it, keys
    /// included. What holds no `from` is shared, not copied.
    fn replace(&self, v: &Value, deep: bool) -> Value {
        match v {
            Value::String(s) if self.in_text(s) => Value::String(s.replace(&self.from, &self.to)),
            Value::Bytes(b) if self.in_bytes(b) => {
                let text = String::from_utf8_lossy(b).replace(&self.from, &self.to);
                Value::bytes(text.into_bytes())
            }
            Value::List(items) if deep && self.find(v, true, 0) == Found::Yes => {
                Value::list(items.iter().map(|x| self.replace(x, true)).collect())
            }
            Value::Map(m) if deep && self.find(v, true, 0) == Found::Yes => {
                let entries = m
                    .read()
                    .iter()
                    .map(|(k, x)| (k.replace(&self.from, &self.to), self.replace(x, true)))
                    .collect();
                Value::Map(match m.type_name() {
                    Some(t) => Map::named(t, entries),
                    None => Map::from_btree(entries),
                })
            }
            other => other.clone(),
        }
    }
}

fn found(yes: bool) -> Found {
    if yes { Found::Yes } else { Found::No }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Function, Functions, MissingKey, Templates, Type};

    /// A host object that prints the string, as Helm's `.Capabilities` does.
    struct Caps;

    impl crate::Object for Caps {
        fn type_name(&self) -> String {
            "*caps".to_string()
        }

        fn format(&self) -> String {
            "&{v1.36.0 [v1]}".to_string()
        }
    }

    /// Executes `text` with `.v` = "v1.36.0" and `.caps` (printing it) and says whether it would
    /// have gone the same way with "v1.33.0". Helm's `include` is there, as a host adds it.
    fn holds(text: &str) -> bool {
        let mut functions = Functions::sprig();
        let include = Function::new(&[Type::String, Type::Any], |cx, a| {
            let name = a[0].as_str().unwrap_or("");
            cx.execute_template(name, &a[1]).map(Value::from)
        });
        functions.insert("include", include.with_effects(Effects::Executes));
        let mut set = Templates::new(functions);
        set.set_missing_key(MissingKey::Zero);
        set.parse("t", text).unwrap();
        let data: Map = [
            ("v".to_string(), Value::from("v1.36.0")),
            ("caps".to_string(), Value::Object(std::sync::Arc::new(Caps))),
        ]
        .into_iter()
        .collect();
        let mut watch = Substitution::new("v1.36.0", "v1.33.0").unwrap();
        set.execute_watching("t", &Value::Map(data), None, &mut watch)
            .unwrap();
        watch.holds()
    }

    #[test]
    fn comparisons_that_answer_alike_hold() {
        assert!(holds(r#"{{ if semverCompare "<1.25-0" .v }}old{{ end }}"#));
        assert!(holds(
            r#"{{ $v := default .v .missing }}{{ if and (not (empty $v)) (semverCompare ">=1.21-0" $v) }}new{{ end }}"#
        ));
        assert!(holds(
            r#"{{ define "v" }}{{ .v }}{{ end }}{{ if semverCompare ">=1.30-0" (include "v" .) }}x{{ end }}"#
        ));
        assert!(holds(
            r#"{{ $l := list .v }}{{ len $l }}{{ if has "a" $l }}a{{ end }}"#
        ));
    }

    #[test]
    fn what_could_differ_breaks_the_check() {
        // The answer differs between the two strings.
        assert!(!holds(
            r#"{{ if semverCompare ">=1.35-0" .v }}new{{ end }}"#
        ));
        // The string is printed, or changed in a way that loses it.
        assert!(!holds("{{ .v }}"));
        assert!(!holds(
            r#"{{ if eq (trimPrefix "v" .v) "1.36.0" }}x{{ end }}"#
        ));
        // Something is done with it that cannot be run again: a map changed, a template picked.
        assert!(!holds(r#"{{ $d := dict }}{{ $_ := set $d "k" .v }}"#));
        assert!(!holds(
            r#"{{ define "v1.36.0" }}{{ end }}{{ $_ := include .v . }}"#
        ));
        // A host object that prints it, given to a function: a cut of it may differ unseen.
        assert!(!holds(
            r#"{{ if eq (printf "%.7v" .caps) "&{v1.36" }}x{{ end }}"#
        ));
        assert!(!holds(r#"{{ $_ := toString (list .caps) }}"#));
        // A map keyed by it orders a range.
        assert!(!holds(
            r#"{{ range $k, $x := dict .v 1 "v1.34" 2 }}{{ $x }}{{ end }}"#
        ));
    }

    #[test]
    fn calls_without_the_string_hold() {
        // The object moved, not read.
        assert!(holds(
            r#"{{ $c := default .caps .missing }}{{ with $c }}{{ end }}"#
        ));
        assert!(holds(
            r#"{{ toJson (dict "a" (list 1 2)) }}{{ upper "x" }}"#
        ));
    }
}
