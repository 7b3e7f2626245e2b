//! The public API as the tool uses it: sets, shared-mutable maps, host functions that execute
//! templates, host objects, errors and limits. Go's exact behaviour is checked against real
//! Helm by the workspace's `gotemplate_corpus` test.

use std::sync::Arc;

use gotemplate::{
    Error, ErrorKind, Function, Functions, Limits, Map, MissingKey, Object, Templates, Type, Value,
};

fn map(entries: &[(&str, Value)]) -> Value {
    Value::Map(
        entries
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
    )
}

#[test]
fn defines_join_the_set_and_execute_by_name() {
    let mut set = Templates::new(Functions::sprig());
    set.parse(
        "a",
        r#"{{ define "x" }}X{{ . }}{{ end }}a:{{ template "x" 1 }}"#,
    )
    .unwrap();
    set.parse("b", r#"b:{{ template "x" 2 }}"#).unwrap();
    assert_eq!(set.execute("a", &Value::Nil).unwrap(), "a:X1");
    assert_eq!(set.execute("b", &Value::Nil).unwrap(), "b:X2");
    assert_eq!(set.execute("x", &Value::from("y")).unwrap(), "Xy");
    assert_eq!(set.names(), vec!["a", "b", "x"]);
}

#[test]
fn maps_are_shared_and_mutable_like_go_maps() {
    let mut funcs = Functions::new();
    funcs.insert(
        "put",
        Function::new(&[Type::Map, Type::String, Type::Any], |_, a| {
            a[0].as_map()
                .unwrap()
                .insert(a[1].as_str().unwrap(), a[2].clone());
            Ok(a[0].clone())
        }),
    );
    let mut set = Templates::new(funcs);
    set.parse("t", r#"{{ $_ := put .m "k" 1 }}{{ .m.k }}"#)
        .unwrap();
    let m = Map::new();
    let out = set
        .execute("t", &map(&[("m", Value::Map(m.clone()))]))
        .unwrap();
    assert_eq!(out, "1");
    assert_eq!(m.get("k").map(|v| v.to_string()), Some("1".to_string()));
}

#[test]
fn functions_execute_templates_and_new_text_with_host_state() {
    struct Calls(usize);
    let mut funcs = Functions::sprig();
    funcs.insert(
        "include",
        Function::new(&[Type::String, Type::Any], |cx, a| {
            if let Some(c) = cx.host::<Calls>() {
                c.0 += 1;
            }
            cx.execute_template(a[0].as_str().unwrap(), &a[1])
                .map(Value::from)
        }),
    );
    funcs.insert(
        "tpl",
        Function::new(&[Type::String, Type::Any], |cx, a| {
            let name = cx.template_name().to_string();
            cx.execute_text(&name, a[0].as_str().unwrap(), &a[1])
                .map(Value::from)
        }),
    );
    let mut set = Templates::new(funcs);
    set.parse(
        "main",
        r#"{{ define "n" }}<{{ . }}>{{ end }}{{ include "n" "a" | upper }} {{ tpl "{{ include \"n\" . }}" "b" }}"#,
    )
    .unwrap();
    let mut calls = Calls(0);
    let out = set
        .execute_with_host("main", &Value::Nil, &mut calls)
        .unwrap();
    assert_eq!(out, "<A> <b>");
    assert_eq!(calls.0, 2);
    // tpl's own defines stay in its copy of the set.
    assert!(!set.has("other"));
}

struct Caps;

impl Object for Caps {
    fn type_name(&self) -> String {
        "*chartutil.Capabilities".into()
    }
    fn field(&self, name: &str) -> Option<Value> {
        (name == "KubeVersion").then(|| Value::from("v1.33.0"))
    }
    fn call_method(&self, name: &str, args: &[Value]) -> Option<Result<Value, Error>> {
        (name == "Has").then(|| {
            Ok(Value::Bool(
                args.first().and_then(Value::as_str) == Some("v1"),
            ))
        })
    }
    fn format(&self) -> String {
        "{caps}".into()
    }
}

#[test]
fn host_objects_have_fields_and_methods() {
    let mut set = Templates::new(Functions::sprig());
    set.parse(
        "t",
        r#"{{ .C.KubeVersion }} {{ .C.Has "v1" }} {{ .C.Has "x" }} {{ .C }}"#,
    )
    .unwrap();
    let data = map(&[("C", Value::Object(Arc::new(Caps)))]);
    assert_eq!(
        set.execute("t", &data).unwrap(),
        "v1.33.0 true false {caps}"
    );
    set.parse("u", "{{ .C.Nope }}").unwrap();
    let err = set.execute("u", &data).unwrap_err();
    // The object sits in a map, so Go names the field's static type: interface {}.
    assert_eq!(
        err.message,
        r#"template: u:1:5: executing "u" at <.C.Nope>: can't evaluate field Nope in type interface {}"#
    );
}

#[test]
fn numbers_from_json_are_float64_and_literals_are_int() {
    let values: serde_json::Value = serde_json::json!({"n": 1000000, "f": 1.5});
    let out = gotemplate::render(
        "t",
        "{{ .n }} {{ 1000000 }} {{ .f }}",
        &Value::from_json(&values),
    );
    assert_eq!(out.unwrap(), "1e+06 1000000 1.5");
}

#[test]
fn missing_keys_follow_the_option() {
    let data = map(&[("a", map(&[]))]);
    let mut set = Templates::new(Functions::new());
    set.parse("t", "[{{ .a.b }}]").unwrap();
    assert_eq!(set.execute("t", &data).unwrap(), "[<no value>]");
    set.set_missing_key(MissingKey::Error);
    let err = set.execute("t", &data).unwrap_err();
    assert!(
        err.message.ends_with(r#"map has no entry for key "b""#),
        "{err}"
    );
}

#[test]
fn limits_stop_runaway_templates() {
    let mut set = Templates::new(Functions::sprig());
    set.set_limits(Limits {
        max_depth: 50,
        ..Limits::default()
    });
    set.parse(
        "t",
        r#"{{ define "r" }}{{ template "r" . }}{{ end }}{{ template "r" . }}"#,
    )
    .unwrap();
    let err = set.execute("t", &Value::Nil).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Limit);
    assert!(
        err.message.contains("exceeded maximum template depth (50)"),
        "{err}"
    );

    set.set_limits(Limits {
        max_output: 1000,
        ..Limits::default()
    });
    set.parse("big", r#"{{ range 2000 }}x{{ end }}"#).unwrap();
    assert_eq!(
        set.execute("big", &Value::Nil).unwrap_err().kind,
        ErrorKind::Limit
    );
}

#[test]
fn errors_carry_go_texts() {
    let mut set = Templates::new(Functions::sprig());
    let err = set.parse("p", "{{ if }}").unwrap_err();
    assert_eq!(err.message, "template: p:1: missing value for if");
    assert_eq!(err.kind, ErrorKind::Parse);
}
