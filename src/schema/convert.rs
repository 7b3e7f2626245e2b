//! `values.schema.json` (JSON Schema draft-04 to 2020-12) to a structural schema.
//!
//! Each schema node is first *flattened*: its `$ref`s and `allOf` branches are merged into one
//! set of keywords, `anyOf`/`oneOf` are reduced where a structural schema can say the same
//! (a `null` branch is `nullable`, a single other branch is merged, `integer` or `string` is
//! `x-kubernetes-int-or-string`) and relaxed where it cannot. The flat keywords are then
//! turned into a [`Node`], converting its children the same way.

use std::collections::VecDeque;

use serde_json::{Map, Value};

use super::node::{CheckKind, Node, Type, VALUE_CHECKS, known_format};
use super::{SpecSchema, child_path};

/// Deeper than this, a schema is kept as "anything": a guard against pathological nesting, far
/// beyond what a chart's values need.
const MAX_DEPTH: usize = 64;
/// How many `$ref`/`allOf` branches one node may merge: a guard against reference chains that
/// grow without recursing.
const MAX_MERGES: usize = 256;
/// Past this many nodes, `$ref`s are no longer expanded: a chart that vendors Kubernetes
/// definitions (a PodSpec referenced in ten places) would otherwise give a CRD too large for
/// the API server to store.
const MAX_NODES: usize = 5000;

const PRESERVED: &str = "kept as x-kubernetes-preserve-unknown-fields";

/// Keywords with no structural equivalent, and what their absence means for users.
const UNEXPRESSIBLE: &[(&str, &str)] = &[
    (
        "not",
        "not cannot be expressed in a structural schema; not checked",
    ),
    (
        "if",
        "if/then/else cannot be expressed in a structural schema; not checked",
    ),
    (
        "dependencies",
        "dependencies cannot be expressed in a structural schema; not checked",
    ),
    (
        "dependentRequired",
        "dependentRequired cannot be expressed in a structural schema; not checked",
    ),
    (
        "dependentSchemas",
        "dependentSchemas cannot be expressed in a structural schema; not checked",
    ),
    (
        "propertyNames",
        "propertyNames cannot be expressed in a structural schema; key names are not checked",
    ),
    (
        "contains",
        "contains cannot be expressed in a structural schema; not checked",
    ),
    (
        "unevaluatedItems",
        "unevaluatedItems cannot be expressed in a structural schema; not checked",
    ),
];

pub(super) fn convert(document: &Value) -> SpecSchema {
    let mut converter = Converter {
        document,
        relaxed: Vec::new(),
        // The root is being expanded: `$ref: "#"` below it is recursion.
        refs: vec!["#".to_owned()],
        depth: 0,
        nodes: 0,
        unchecked_required: Vec::new(),
    };
    let mut root = converter.node(document.clone(), "spec", true);
    root.nullable = false;
    if root.ty != Some(Type::Object) {
        if root.ty.is_some() || root.int_or_string {
            converter.relax(
                "spec",
                "values.schema.json describes something other than a map, but Helm values are always a map; spec accepts any keys",
            );
            root = Node::open_object();
        } else {
            // An untyped root accepts anything already; values are a map all the same.
            root.ty = Some(Type::Object);
            root.preserve_unknown_fields = true;
            root.enumeration = None;
        }
    }
    if !converter.unchecked_required.is_empty() {
        let places = converter.unchecked_required.join(", ");
        converter.relaxed.push(format!(
            "{places}: required keys are not enforced at admission: Helm fills keys a custom resource leaves out from values.yaml, then checks the merged values against values.schema.json"
        ));
    }
    let mut relaxed = Vec::new();
    for entry in converter.relaxed {
        if !relaxed.contains(&entry) {
            relaxed.push(entry);
        }
    }
    SpecSchema {
        schema: root.to_json(),
        relaxed,
    }
}

struct Converter<'a> {
    document: &'a Value,
    relaxed: Vec<String>,
    /// The `$ref`s being expanded on the way from the root to the current node: meeting one
    /// again means the schema is recursive.
    refs: Vec<String>,
    depth: usize,
    nodes: usize,
    /// Objects whose `required` is dropped because Helm fills keys in from values.yaml.
    unchecked_required: Vec<String>,
}

/// A node's keywords once its `$ref`s and `allOf` are merged.
#[derive(Default)]
struct Flat {
    keys: Map<String, Value>,
    /// Something this node stands for could not be expanded (a recursive or unresolvable
    /// `$ref`, a relaxed `anyOf`): it must keep what it does not know.
    open: bool,
}

impl<'a> Converter<'a> {
    fn relax(&mut self, path: &str, why: impl AsRef<str>) {
        self.relaxed.push(format!("{path}: {}", why.as_ref()));
    }

    /// Converts one schema. `merged` says whether Helm merges values at this place over the
    /// chart's defaults (true down from the root until a list is crossed).
    /// The schema is taken by value: every node owns its subtree once, where borrowing it
    /// made each level copy everything below it.
    fn node(&mut self, schema: Value, path: &str, merged: bool) -> Node {
        if self.depth >= MAX_DEPTH {
            self.relax(
                path,
                format!("the schema nests deeper than {MAX_DEPTH} levels; {PRESERVED}"),
            );
            return Node::any();
        }
        let mark = self.refs.len();
        self.depth += 1;
        self.nodes += 1;
        let node = match schema {
            Value::Bool(true) => Node::any(),
            Value::Object(map) => {
                let mut flat = Flat::default();
                self.flatten_into(&mut flat, Value::Object(map), path);
                self.junctions(&mut flat, path);
                self.build(flat, path, merged)
            }
            Value::Bool(false) => {
                self.relax(
                    path,
                    format!("the schema false (no value allowed) cannot be expressed in a structural schema; {PRESERVED}"),
                );
                Node::any()
            }
            other => {
                self.relax(path, format!("{other} is not a schema; {PRESERVED}"));
                Node::any()
            }
        };
        self.depth -= 1;
        self.refs.truncate(mark);
        node
    }

    /// Merges a schema, its `$ref` targets and its `allOf` branches into `flat`. The refs
    /// followed stay on the stack until the node is converted, so that a child referring back
    /// to one of them is seen as recursion.
    fn flatten_into(&mut self, flat: &mut Flat, schema: Value, path: &str) {
        let mut queue = VecDeque::from([schema]);
        let mut merges = 0;
        while let Some(branch) = queue.pop_front() {
            merges += 1;
            if merges > MAX_MERGES {
                self.relax(
                    path,
                    format!("more than {MAX_MERGES} $ref/allOf branches to merge; {PRESERVED}"),
                );
                flat.open = true;
                break;
            }
            let mut branch = match branch {
                Value::Bool(true) => continue,
                Value::Object(map) => map,
                Value::Bool(false) => {
                    self.relax(
                        path,
                        format!("an allOf branch is false (no value allowed), which cannot be expressed in a structural schema; {PRESERVED}"),
                    );
                    flat.open = true;
                    continue;
                }
                other => {
                    self.relax(path, format!("{other} is not a schema; {PRESERVED}"));
                    flat.open = true;
                    continue;
                }
            };
            if let Some(reference) = branch.remove("$ref") {
                self.follow(flat, &reference, path, &mut queue);
            }
            for dynamic in ["$dynamicRef", "$recursiveRef"] {
                if branch.remove(dynamic).is_some() {
                    self.relax(
                        path,
                        format!("{dynamic} (a recursive schema) cannot be expressed in a structural schema; {PRESERVED}"),
                    );
                    flat.open = true;
                }
            }
            match branch.remove("allOf") {
                Some(Value::Array(branches)) => queue.extend(branches),
                Some(other) => self.relax(
                    path,
                    format!("allOf must be a list of schemas, not {other}; ignored"),
                ),
                None => {}
            }
            self.merge(flat, branch, path);
        }
    }

    fn follow(
        &mut self,
        flat: &mut Flat,
        reference: &Value,
        path: &str,
        queue: &mut VecDeque<Value>,
    ) {
        let Some(reference) = reference.as_str() else {
            self.relax(
                path,
                format!("$ref must be a string, not {reference}; {PRESERVED}"),
            );
            flat.open = true;
            return;
        };
        match resolve(self.document, reference) {
            Err(why) => {
                self.relax(path, format!("$ref {reference} {why}; {PRESERVED}"));
                flat.open = true;
            }
            Ok(_) if self.nodes > MAX_NODES => {
                self.relax(
                    path,
                    format!("$ref {reference} is not expanded: the schema already has {MAX_NODES} nodes, and a larger CRD risks the API server's size limit; {PRESERVED}"),
                );
                flat.open = true;
            }
            Ok(_) if self.refs.iter().any(|seen| seen == reference) => {
                self.relax(
                    path,
                    format!("$ref {reference} is recursive, which a structural schema cannot hold; {PRESERVED}"),
                );
                flat.open = true;
            }
            Ok(target) => {
                self.refs.push(reference.to_owned());
                queue.push_back(target.clone());
            }
        }
    }

    /// Adds one branch's keywords to `flat`, combining those both have the way `allOf` means:
    /// a value must satisfy both.
    fn merge(&mut self, flat: &mut Flat, branch: Map<String, Value>, path: &str) {
        for (key, value) in branch {
            let Some(existing) = flat.keys.get_mut(&key) else {
                flat.keys.insert(key, value);
                continue;
            };
            if *existing == value {
                continue;
            }
            match key.as_str() {
                "properties" => {
                    if let (Value::Object(into), Value::Object(more)) = (existing, value) {
                        for (name, schema) in more {
                            match into.get_mut(&name) {
                                Some(previous) if *previous != schema => {
                                    let both = Value::Array(vec![previous.take(), schema]);
                                    *previous =
                                        Value::Object(Map::from_iter([("allOf".into(), both)]));
                                }
                                Some(_) => {}
                                None => {
                                    into.insert(name, schema);
                                }
                            }
                        }
                    }
                }
                "items" | "additionalProperties" | "unevaluatedProperties" => {
                    let previous = existing.take();
                    *existing = both_schemas(previous, value);
                }
                "required" => {
                    if let (Value::Array(into), Value::Array(more)) = (existing, value) {
                        for name in more {
                            if !into.contains(&name) {
                                into.push(name);
                            }
                        }
                    }
                }
                "type" => {
                    let theirs = type_names(&value);
                    let common: Vec<Value> = type_names(existing)
                        .into_iter()
                        .filter(|name| theirs.contains(name))
                        .map(Value::from)
                        .collect();
                    if common.is_empty() {
                        let why = format!(
                            "allOf branches disagree on the type ({existing} and {value}); {PRESERVED}"
                        );
                        self.relax(path, why);
                        flat.keys.remove("type");
                        flat.open = true;
                    } else {
                        *existing = Value::Array(common);
                    }
                }
                "enum" => {
                    if let (Value::Array(into), Value::Array(more)) = (existing, value) {
                        into.retain(|v| more.contains(v));
                    }
                }
                "minimum" | "minLength" | "minItems" | "minProperties" => {
                    if let (Some(a), Some(b)) = (existing.as_f64(), value.as_f64())
                        && b > a
                    {
                        *existing = value;
                    }
                }
                "maximum" | "maxLength" | "maxItems" | "maxProperties" => {
                    if let (Some(a), Some(b)) = (existing.as_f64(), value.as_f64())
                        && b < a
                    {
                        *existing = value;
                    }
                }
                // Annotations: the node's own (merged first) wins.
                "description" | "title" | "default" | "examples" | "example" | "$comment"
                | "$id" | "$schema" | "$anchor" | "definitions" | "$defs" | "deprecated"
                | "readOnly" | "writeOnly" => {}
                _ => {
                    let why = format!(
                        "{key} differs between the schemas allOf/$ref combine ({existing} and {value}); not checked"
                    );
                    self.relax(path, why);
                    flat.keys.remove(&key);
                }
            }
        }
    }

    /// Reduces `anyOf` and `oneOf` to what a structural schema can say, relaxing the rest.
    fn junctions(&mut self, flat: &mut Flat, path: &str) {
        // A branch merged in may bring its own anyOf/oneOf: repeat until none is left.
        for _ in 0..MAX_MERGES {
            let Some(keyword) = ["anyOf", "oneOf"]
                .into_iter()
                .find(|keyword| flat.keys.contains_key(*keyword))
            else {
                return;
            };
            let Some(Value::Array(branches)) = flat.keys.remove(keyword) else {
                self.relax(
                    path,
                    format!("{keyword} must be a list of schemas; ignored"),
                );
                continue;
            };
            // Look at each branch with its refs expanded, without keeping anything of the look.
            let (refs, relaxed) = (self.refs.len(), self.relaxed.len());
            let shapes: Vec<Flat> = branches
                .iter()
                .map(|branch| {
                    let mut shape = Flat::default();
                    self.flatten_into(&mut shape, branch.clone(), path);
                    self.refs.truncate(refs);
                    shape
                })
                .collect();
            self.relaxed.truncate(relaxed);

            let mut rest = Vec::new();
            for (branch, shape) in branches.into_iter().zip(shapes) {
                if is_null_only(&shape.keys) {
                    flat.keys.insert("nullable".into(), true.into());
                } else {
                    rest.push((branch, shape));
                }
            }
            match rest.len() {
                0 => {
                    self.relax(
                        path,
                        format!("{keyword} allows only null, which a structural schema cannot say; {PRESERVED}"),
                    );
                    flat.open = true;
                }
                1 => {
                    let (branch, _) = rest.remove(0);
                    self.flatten_into(flat, branch, path);
                }
                _ => self.relax_junction(flat, keyword, &rest, path),
            }
        }
    }

    fn relax_junction(
        &mut self,
        flat: &mut Flat,
        keyword: &str,
        branches: &[(Value, Flat)],
        path: &str,
    ) {
        let types: Vec<Vec<String>> = branches
            .iter()
            .map(|(_, shape)| {
                shape
                    .keys
                    .get("type")
                    .map(type_names)
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|name| name != "null")
                    .collect()
            })
            .collect();
        let only_types = branches.iter().all(|(_, shape)| {
            shape
                .keys
                .keys()
                .all(|key| matches!(key.as_str(), "type" | "description" | "title"))
        });
        let mut all: Vec<&str> = types.iter().flatten().map(String::as_str).collect();
        all.sort_unstable();
        all.dedup();
        let typed = types.iter().all(|names| !names.is_empty());
        if typed && all == ["integer", "string"] && !flat.keys.contains_key("type") {
            flat.keys
                .insert("x-kubernetes-int-or-string".into(), true.into());
            if !only_types {
                self.relax(
                    path,
                    format!("{keyword} of integer and string is kept as x-kubernetes-int-or-string; the checks inside its branches are not applied"),
                );
            }
            return;
        }
        let common = match all.as_slice() {
            [single] if typed => Some(*single),
            _ => None,
        };
        if let Some(name) = common
            && !flat.keys.contains_key("type")
        {
            flat.keys.insert("type".into(), name.into());
        }
        let what = match flat.keys.get("type").and_then(Value::as_str) {
            Some(name) if Type::parse(name).is_some_and(Type::is_scalar) => {
                format!("kept as {name} without the checks of its branches")
            }
            _ => PRESERVED.to_string(),
        };
        self.relax(
            path,
            format!("{keyword} cannot be expressed in a structural schema; {what}"),
        );
        flat.open = true;
    }

    fn build(&mut self, mut flat: Flat, path: &str, merged: bool) -> Node {
        let keys = &mut flat.keys;
        let mut node = Node::default();
        let mut open = flat.open;

        if let Some(Value::String(text)) = keys.remove("description") {
            node.description = Some(text);
        }
        if let Some(Value::String(text)) = keys.remove("title") {
            node.title = Some(text);
        }
        if keys.remove("nullable") == Some(Value::Bool(true)) {
            node.nullable = true;
        }
        if keys.remove("x-kubernetes-preserve-unknown-fields") == Some(Value::Bool(true)) {
            open = true;
        }
        if keys.remove("x-kubernetes-int-or-string") == Some(Value::Bool(true)) {
            node.int_or_string = true;
        }

        // enum and const
        let constant = keys.remove("const");
        let enumeration = match keys.remove("enum") {
            Some(Value::Array(values)) if !values.is_empty() => Some(values),
            Some(other) => {
                self.relax(
                    path,
                    format!("enum must be a non-empty list, not {other}; not checked"),
                );
                None
            }
            None => None,
        };
        node.enumeration = match (constant, enumeration) {
            (Some(value), Some(values)) if !values.contains(&value) => {
                self.relax(
                    path,
                    format!("const {value} is not in its enum, so no value is valid, which a structural schema cannot say; not checked"),
                );
                None
            }
            (Some(value), _) => Some(vec![value]),
            (None, values) => values,
        };
        if let Some(values) = &node.enumeration
            && values.contains(&Value::Null)
        {
            node.nullable = true;
        }

        // type
        if !node.int_or_string {
            match keys.remove("type") {
                None => node.ty = infer_type(keys, node.enumeration.as_deref()),
                Some(declared) => {
                    let names = type_names(&declared);
                    if names.is_empty() {
                        self.relax(path, format!("type {declared} is not a type; {PRESERVED}"));
                        open = true;
                    }
                    let mut types = Vec::new();
                    for name in &names {
                        match (name.as_str(), Type::parse(name)) {
                            ("null", _) => node.nullable = true,
                            (_, Some(ty)) if !types.contains(&ty) => types.push(ty),
                            (_, Some(_)) => {}
                            (_, None) => {
                                self.relax(
                                    path,
                                    format!("type {name:?} is not a JSON Schema type; ignored"),
                                );
                            }
                        }
                    }
                    types.sort_by_key(|ty| ty.name());
                    match types.as_slice() {
                        [] if names.iter().any(|n| n == "null") => {
                            self.relax(
                                path,
                                format!("type null alone (a value that must be null) cannot be expressed in a structural schema; {PRESERVED}"),
                            );
                            open = true;
                        }
                        [] => {}
                        [ty] => node.ty = Some(*ty),
                        [Type::Integer, Type::String] => node.int_or_string = true,
                        [Type::Integer, Type::Number] => node.ty = Some(Type::Number),
                        _ => {
                            self.relax(
                                path,
                                format!("type {declared} (several types) cannot be expressed in a structural schema; {PRESERVED}"),
                            );
                            open = true;
                        }
                    }
                }
            }
        } else {
            keys.remove("type");
        }

        self.format(&mut node, keys, path);
        self.checks(&mut node, keys, path);

        match node.ty {
            Some(Type::Object) => self.object(&mut node, keys, path, merged, open),
            Some(Type::Array) => self.array(&mut node, keys, path),
            None if !node.int_or_string => node.preserve_unknown_fields = true,
            _ => {}
        }

        for (keyword, why) in UNEXPRESSIBLE {
            if keys.contains_key(*keyword) {
                self.relax(path, why);
            }
        }
        node
    }

    fn format(&mut self, node: &mut Node, keys: &mut Map<String, Value>, path: &str) {
        let Some(format) = keys.remove("format") else {
            return;
        };
        let Some(format) = format.as_str() else {
            return;
        };
        if known_format(node.ty, format) {
            node.format = Some(format.to_owned());
        } else if node.ty == Some(Type::String) || node.int_or_string {
            self.relax(
                path,
                format!("format {format:?} is not one the API server knows; not checked"),
            );
        }
    }

    fn checks(&mut self, node: &mut Node, keys: &mut Map<String, Value>, path: &str) {
        let mut dropped = Vec::new();
        for (keyword, kind) in VALUE_CHECKS {
            let Some(value) = keys.remove(*keyword) else {
                continue;
            };
            if !kind.applies_to(node.ty, node.int_or_string) {
                // JSON Schema applies a check only to values of its kind: on a typed node of
                // another kind it never mattered, on an untyped one it is lost.
                if node.ty.is_none() && !node.int_or_string {
                    dropped.push(*keyword);
                }
                continue;
            }
            let keep = match (*keyword, &value) {
                ("exclusiveMinimum" | "exclusiveMaximum", Value::Bool(_) | Value::Number(_)) => {
                    true
                }
                ("pattern", Value::String(pattern)) => {
                    if regex::Regex::new(pattern).is_ok() {
                        true
                    } else {
                        self.relax(
                            path,
                            format!("pattern {pattern:?} is not valid RE2 syntax, the regular expressions of the API server; not checked"),
                        );
                        continue;
                    }
                }
                ("minimum" | "maximum" | "multipleOf", Value::Number(_)) => true,
                (_, Value::Number(n)) if *kind != CheckKind::Number => n.is_u64(),
                _ => false,
            };
            if keep {
                node.checks.insert((*keyword).to_owned(), value);
            } else {
                self.relax(
                    path,
                    format!("{keyword} {value} is not a valid value for it; not checked"),
                );
            }
        }
        if !dropped.is_empty() {
            self.relax(
                path,
                format!(
                    "{} cannot be checked without a type; not checked",
                    dropped.join(", ")
                ),
            );
        }
        // Draft-06 and later write exclusive bounds as numbers; OpenAPI as flags on the bound.
        for (bound, exclusive, stricter) in [
            (
                "minimum",
                "exclusiveMinimum",
                f64::gt as fn(&f64, &f64) -> bool,
            ),
            ("maximum", "exclusiveMaximum", f64::lt),
        ] {
            match node.checks.get(exclusive).cloned() {
                Some(Value::Number(limit)) => {
                    let inclusive = node.checks.get(bound).and_then(Value::as_f64);
                    match (inclusive, limit.as_f64()) {
                        (Some(inclusive), Some(limit)) if stricter(&inclusive, &limit) => {
                            node.checks.remove(exclusive);
                        }
                        _ => {
                            node.checks.insert(bound.into(), Value::Number(limit));
                            node.checks.insert(exclusive.into(), true.into());
                        }
                    }
                }
                Some(Value::Bool(true)) if node.checks.contains_key(bound) => {}
                Some(_) => {
                    node.checks.remove(exclusive);
                }
                None => {}
            }
        }
    }

    fn object(
        &mut self,
        node: &mut Node,
        keys: &mut Map<String, Value>,
        path: &str,
        merged: bool,
        open: bool,
    ) {
        if let Some(Value::Array(required)) = keys.remove("required") {
            let required: Vec<String> = required
                .into_iter()
                .filter_map(|name| name.as_str().map(str::to_owned))
                .collect();
            if merged {
                if !required.is_empty() {
                    self.unchecked_required.push(path.to_owned());
                }
            } else {
                node.required = required;
            }
        }
        match keys.remove("properties") {
            Some(Value::Object(properties)) => {
                for (name, schema) in properties {
                    let mut child = self.node(schema, &child_path(path, &name), merged);
                    if merged {
                        child.nullable = true;
                    }
                    node.properties.push((name, child));
                }
            }
            Some(other) => self.relax(
                path,
                format!("properties must be a map of schemas, not {other}; ignored"),
            ),
            None => {}
        }

        let mut closed = false;
        let additional = match keys.remove("additionalProperties") {
            Some(value) => Some(value),
            // Once allOf and $ref are merged, unevaluatedProperties means what
            // additionalProperties does.
            None => keys.remove("unevaluatedProperties"),
        };
        let mut values_schema = None;
        match additional {
            None | Some(Value::Bool(true)) => {}
            Some(Value::Bool(false)) => closed = true,
            Some(Value::Object(schema)) if schema.is_empty() => {}
            Some(schema) => values_schema = Some(schema),
        }
        match keys.remove("patternProperties") {
            Some(Value::Object(patterns)) if !patterns.is_empty() => {
                closed = false;
                let single = patterns.len() == 1 && values_schema.is_none();
                match patterns.into_iter().next() {
                    Some((pattern, schema)) if single && node.properties.is_empty() => {
                        self.relax(
                            path,
                            format!("patternProperties cannot be expressed in a structural schema; key names are not checked against {pattern:?}, their values are"),
                        );
                        values_schema = Some(schema);
                    }
                    _ => self.relax(
                        path,
                        "patternProperties cannot be expressed in a structural schema; keys not listed in properties are not checked",
                    ),
                }
            }
            _ => {}
        }
        if let Some(schema) = values_schema {
            if node.properties.is_empty() {
                let mut values = self.node(schema, &format!("{path}.*"), merged);
                if merged {
                    values.nullable = true;
                }
                node.additional_properties = Some(Box::new(values));
            } else {
                self.relax(
                    path,
                    "additionalProperties next to properties cannot be expressed in a structural schema; keys not listed in properties are not checked",
                );
            }
        }
        node.preserve_unknown_fields = node.additional_properties.is_none() && (!closed || open);
    }

    fn array(&mut self, node: &mut Node, keys: &mut Map<String, Value>, path: &str) {
        let items_path = format!("{path}[*]");
        let tuple = keys.remove("prefixItems").is_some();
        let items = match keys.remove("items") {
            Some(Value::Array(_)) => {
                self.relax(
                    path,
                    "items as a list (a tuple) cannot be expressed in a structural schema; items are not checked",
                );
                Node::any()
            }
            Some(_) if tuple => {
                self.relax(
                    path,
                    "prefixItems cannot be expressed in a structural schema; items are not checked",
                );
                Node::any()
            }
            Some(schema) => self.node(schema, &items_path, false),
            None => {
                if tuple {
                    self.relax(
                        path,
                        "prefixItems cannot be expressed in a structural schema; items are not checked",
                    );
                }
                Node::any()
            }
        };
        if keys.remove("uniqueItems") == Some(Value::Bool(true)) {
            // The API server forbids uniqueItems (quadratic); a set list says the same for
            // scalar items.
            if items.ty.is_some_and(Type::is_scalar) && !items.nullable {
                node.list_set = true;
            } else {
                self.relax(
                    path,
                    "uniqueItems cannot be expressed in a structural schema for items that are not plain scalars; not checked",
                );
            }
        }
        node.items = Some(Box::new(items));
    }
}

/// Combines two schemas that must both hold, as `allOf` does.
fn both_schemas(a: Value, b: Value) -> Value {
    let accepts_all =
        |v: &Value| v == &Value::Bool(true) || v.as_object().is_some_and(Map::is_empty);
    if accepts_all(&a) {
        return b;
    }
    if accepts_all(&b) || a == Value::Bool(false) {
        return a;
    }
    if b == Value::Bool(false) {
        return b;
    }
    Value::Object(Map::from_iter([("allOf".into(), Value::Array(vec![a, b]))]))
}

/// The type names of a `type` keyword, which is a name or a list of names.
fn type_names(declared: &Value) -> Vec<String> {
    match declared {
        Value::String(name) => vec![name.clone()],
        Value::Array(names) => names
            .iter()
            .filter_map(|name| name.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    }
}

/// A branch of `anyOf`/`oneOf` that only admits `null`.
fn is_null_only(keys: &Map<String, Value>) -> bool {
    let null_type = keys.get("type").is_some_and(|t| type_names(t) == ["null"]);
    let null_value = keys.get("const") == Some(&Value::Null)
        || keys.get("enum") == Some(&Value::Array(vec![Value::Null]));
    let annotations_only = keys.keys().all(|key| {
        matches!(
            key.as_str(),
            "type" | "const" | "enum" | "description" | "title" | "$comment"
        )
    });
    (null_type || null_value) && annotations_only
}

/// The type a schema without `type` evidently describes, from its keywords or enum values.
fn infer_type(keys: &Map<String, Value>, enumeration: Option<&[Value]>) -> Option<Type> {
    const HINTS: &[(&str, Type)] = &[
        ("properties", Type::Object),
        ("additionalProperties", Type::Object),
        ("patternProperties", Type::Object),
        ("unevaluatedProperties", Type::Object),
        ("required", Type::Object),
        ("minProperties", Type::Object),
        ("maxProperties", Type::Object),
        ("items", Type::Array),
        ("prefixItems", Type::Array),
        ("minItems", Type::Array),
        ("maxItems", Type::Array),
        ("uniqueItems", Type::Array),
        ("minLength", Type::String),
        ("maxLength", Type::String),
        ("pattern", Type::String),
        ("minimum", Type::Number),
        ("maximum", Type::Number),
        ("exclusiveMinimum", Type::Number),
        ("exclusiveMaximum", Type::Number),
        ("multipleOf", Type::Number),
    ];
    let mut found: Vec<Type> = HINTS
        .iter()
        .filter(|(key, _)| keys.contains_key(*key))
        .map(|(_, ty)| *ty)
        .collect();
    if let Some(values) = enumeration {
        found.extend(values.iter().filter_map(Type::of));
    }
    found.sort_by_key(|ty| ty.name());
    found.dedup();
    if found.contains(&Type::Number) {
        found.retain(|ty| *ty != Type::Integer);
    }
    match found.as_slice() {
        [single] => Some(*single),
        _ => None,
    }
}

/// Finds what a local `$ref` points to: `#`, a JSON pointer (`#/definitions/x`, `#/$defs/x`,
/// any `#/...`), or a named anchor (`#name`).
fn resolve<'a>(document: &'a Value, reference: &str) -> Result<&'a Value, &'static str> {
    let own_id = document.get("$id").and_then(Value::as_str).unwrap_or("");
    let local = match reference.split_once('#') {
        Some(("", fragment)) => fragment,
        Some((base, fragment)) if !own_id.is_empty() && base == own_id => fragment,
        _ => return Err("points outside values.schema.json, which cannot be followed here"),
    };
    let fragment = percent_decode(local);
    if fragment.is_empty() {
        return Ok(document);
    }
    if fragment.starts_with('/') {
        return document
            .pointer(&fragment)
            .ok_or("points to nothing in values.schema.json");
    }
    find_anchor(document, &fragment).ok_or("names an anchor values.schema.json does not have")
}

fn find_anchor<'a>(schema: &'a Value, name: &str) -> Option<&'a Value> {
    match schema {
        Value::Object(map) => {
            let anchor = map.get("$anchor").and_then(Value::as_str) == Some(name)
                || map.get("$id").and_then(Value::as_str) == Some(&format!("#{name}"));
            if anchor {
                return Some(schema);
            }
            map.values().find_map(|child| find_anchor(child, name))
        }
        Value::Array(items) => items.iter().find_map(|child| find_anchor(child, name)),
        _ => None,
    }
}

/// `$ref` fragments are URI-encoded (`%25` for `%`, `%7B` for `{`...).
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|pair| std::str::from_utf8(pair).ok())
            .and_then(|pair| u8::from_str_radix(pair, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn spec(document: Value) -> SpecSchema {
        convert(&document)
    }

    fn property(document: Value, name: &str) -> (Value, Vec<String>) {
        let spec = spec(json!({"type": "object", "properties": {name: document}}));
        (spec.schema["properties"][name].clone(), spec.relaxed)
    }

    #[test]
    fn type_arrays_with_null_become_nullable() {
        let (node, relaxed) = property(json!({"type": ["null", "string"]}), "a");
        assert_eq!(node, json!({"type": "string", "nullable": true}));
        assert!(relaxed.is_empty());

        let spec = spec(json!({
            "type": "object",
            "properties": {"list": {"type": "array", "items": {"type": ["integer", "null"]}}},
        }));
        assert_eq!(
            spec.schema["properties"]["list"]["items"],
            json!({"type": "integer", "nullable": true})
        );
    }

    #[test]
    fn other_type_arrays_use_what_kubernetes_has_or_relax() {
        let (node, relaxed) = property(json!({"type": ["string", "integer"]}), "port");
        assert_eq!(
            node,
            json!({"nullable": true, "x-kubernetes-int-or-string": true})
        );
        assert!(relaxed.is_empty());
        let (node, _) = property(json!({"type": ["number", "integer"]}), "ratio");
        assert_eq!(node, json!({"type": "number", "nullable": true}));
        let (node, relaxed) = property(json!({"type": ["string", "boolean"]}), "flag");
        assert_eq!(
            node,
            json!({"nullable": true, "x-kubernetes-preserve-unknown-fields": true})
        );
        assert_eq!(
            relaxed,
            [
                "spec.flag: type [\"string\",\"boolean\"] (several types) cannot be expressed in a structural schema; kept as x-kubernetes-preserve-unknown-fields"
            ]
        );
    }

    #[test]
    fn local_refs_are_resolved_with_the_referring_schema_winning() {
        let spec = spec(json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "urn:test",
            "definitions": {"port": {"type": "integer", "description": "A port.", "maximum": 65535}},
            "$defs": {
                "a/b": {"type": "string"},
                "named": {"$anchor": "label", "type": "string", "maxLength": 63},
                "chain": {"$ref": "#/definitions/port"},
            },
            "type": "object",
            "properties": {
                "http": {"$ref": "#/definitions/port", "description": "The HTTP port."},
                "escaped": {"$ref": "#/$defs/a~1b"},
                "anchored": {"$ref": "#label"},
                "chained": {"$ref": "#/$defs/chain"},
                "withId": {"$ref": "urn:test#/definitions/port"},
            },
        }));
        assert!(spec.relaxed.is_empty(), "{:?}", spec.relaxed);
        let properties = &spec.schema["properties"];
        assert_eq!(
            properties["http"],
            json!({"description": "The HTTP port.", "type": "integer", "nullable": true, "maximum": 65535})
        );
        assert_eq!(
            properties["escaped"],
            json!({"type": "string", "nullable": true})
        );
        assert_eq!(
            properties["anchored"],
            json!({"type": "string", "nullable": true, "maxLength": 63})
        );
        assert_eq!(properties["chained"]["type"], "integer");
        assert_eq!(properties["withId"]["type"], "integer");
        let text = spec.schema.to_string();
        for gone in ["$ref", "$defs", "definitions", "$schema", "$id", "$anchor"] {
            assert!(!text.contains(gone), "{gone} left in {text}");
        }
    }

    #[test]
    fn recursive_refs_relax_at_the_place_they_recur() {
        let spec = spec(json!({
            "definitions": {
                "route": {
                    "type": "object",
                    "properties": {
                        "receiver": {"type": "string"},
                        "routes": {"type": "array", "items": {"$ref": "#/definitions/route"}},
                    },
                },
            },
            "type": "object",
            "properties": {"route": {"$ref": "#/definitions/route"}},
        }));
        let route = &spec.schema["properties"]["route"];
        assert_eq!(route["properties"]["receiver"]["type"], "string");
        assert_eq!(
            route["properties"]["routes"]["items"],
            json!({"x-kubernetes-preserve-unknown-fields": true})
        );
        assert_eq!(
            spec.relaxed,
            [
                "spec.route.routes[*]: $ref #/definitions/route is recursive, which a structural schema cannot hold; kept as x-kubernetes-preserve-unknown-fields"
            ]
        );
        // The whole document referring to itself.
        let spec = convert(&json!({
            "type": "object",
            "properties": {"child": {"$ref": "#"}},
        }));
        assert_eq!(
            spec.schema["properties"]["child"],
            json!({"nullable": true, "x-kubernetes-preserve-unknown-fields": true})
        );
        assert_eq!(spec.relaxed.len(), 1);
    }

    #[test]
    fn unresolvable_refs_relax_and_are_recorded() {
        let (node, relaxed) = property(
            json!({"$ref": "https://example.com/k8s.json#/definitions/Affinity", "type": "object"}),
            "affinity",
        );
        assert_eq!(
            node,
            json!({"type": "object", "nullable": true, "x-kubernetes-preserve-unknown-fields": true})
        );
        assert_eq!(
            relaxed,
            [
                "spec.affinity: $ref https://example.com/k8s.json#/definitions/Affinity points outside values.schema.json, which cannot be followed here; kept as x-kubernetes-preserve-unknown-fields"
            ]
        );
        let (_, relaxed) = property(json!({"$ref": "#/definitions/missing"}), "x");
        assert!(relaxed[0].contains("points to nothing"), "{relaxed:?}");
    }

    #[test]
    fn one_of_is_relaxed_and_recorded() {
        let (node, relaxed) = property(
            json!({
                "description": "TLS settings.",
                "oneOf": [
                    {"type": "object", "properties": {"secretName": {"type": "string"}}},
                    {"type": "object", "properties": {"issuer": {"type": "string"}}},
                ],
            }),
            "tls",
        );
        assert_eq!(
            node,
            json!({
                "description": "TLS settings.",
                "type": "object",
                "nullable": true,
                "x-kubernetes-preserve-unknown-fields": true,
            })
        );
        assert_eq!(
            relaxed,
            [
                "spec.tls: oneOf cannot be expressed in a structural schema; kept as x-kubernetes-preserve-unknown-fields"
            ]
        );
        let (node, relaxed) = property(
            json!({"anyOf": [{"type": "string", "pattern": "^a"}, {"type": "string", "pattern": "^b"}]}),
            "name",
        );
        assert_eq!(node, json!({"type": "string", "nullable": true}));
        assert_eq!(
            relaxed,
            [
                "spec.name: anyOf cannot be expressed in a structural schema; kept as string without the checks of its branches"
            ]
        );
    }

    #[test]
    fn junctions_a_structural_schema_can_say_are_not_relaxed() {
        let (node, relaxed) = property(
            json!({"oneOf": [{"type": "null"}, {"$ref": "#/definitions/x"}]}),
            "a",
        );
        // The ref is resolved against the document's definitions, which this one lacks.
        assert!(relaxed[0].contains("points to nothing"), "{relaxed:?}");
        assert_eq!(node["nullable"], true);

        let document = json!({
            "definitions": {"size": {"type": "string", "pattern": "^[0-9]+Gi$"}},
            "type": "object",
            "properties": {
                "size": {"anyOf": [{"$ref": "#/definitions/size"}, {"type": "null"}]},
                "port": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
                "nested": {"allOf": [{"anyOf": [{"type": "boolean"}]}]},
            },
        });
        let spec = convert(&document);
        assert!(spec.relaxed.is_empty(), "{:?}", spec.relaxed);
        let properties = &spec.schema["properties"];
        assert_eq!(
            properties["size"],
            json!({"type": "string", "nullable": true, "pattern": "^[0-9]+Gi$"})
        );
        assert_eq!(
            properties["port"],
            json!({"nullable": true, "x-kubernetes-int-or-string": true})
        );
        assert_eq!(
            properties["nested"],
            json!({"type": "boolean", "nullable": true})
        );
    }

    #[test]
    fn all_of_branches_are_merged() {
        let spec = convert(&json!({
            "definitions": {"named": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}},
            "type": "object",
            "properties": {
                "items": {
                    "type": "array",
                    "items": {
                        "allOf": [
                            {"$ref": "#/definitions/named"},
                            {"properties": {"name": {"maxLength": 10}, "size": {"type": "integer", "minimum": 1}}},
                            {"properties": {"size": {"minimum": 3}}},
                        ],
                    },
                },
            },
        }));
        assert!(spec.relaxed.is_empty(), "{:?}", spec.relaxed);
        assert_eq!(
            spec.schema["properties"]["items"]["items"],
            json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string", "maxLength": 10},
                    "size": {"type": "integer", "minimum": 3},
                },
                "required": ["name"],
                "x-kubernetes-preserve-unknown-fields": true,
            })
        );
    }

    #[test]
    fn const_becomes_an_enum_of_one() {
        let (node, relaxed) = property(json!({"const": "v1"}), "version");
        assert_eq!(
            node,
            json!({"type": "string", "nullable": true, "enum": ["v1"]})
        );
        assert!(relaxed.is_empty());
        let (node, _) = property(json!({"type": "integer", "enum": [1, 2], "const": 2}), "n");
        assert_eq!(node["enum"], json!([2]));
    }

    #[test]
    fn objects_follow_what_helm_accepts() {
        let spec = convert(&json!({
            "type": "object",
            "required": ["image"],
            "properties": {
                "image": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["repository"],
                    "properties": {"repository": {"type": "string", "default": "nginx"}},
                },
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "both": {
                    "type": "object",
                    "properties": {"a": {"type": "string"}},
                    "additionalProperties": {"type": "string"},
                },
                "hosts": {
                    "type": "array",
                    "items": {"type": "object", "required": ["host"], "properties": {"host": {"type": "string"}}},
                },
            },
        }));
        let properties = &spec.schema["properties"];
        assert_eq!(
            properties["image"],
            json!({
                "type": "object",
                "nullable": true,
                "properties": {"repository": {"type": "string", "nullable": true}},
            })
        );
        assert_eq!(
            properties["labels"],
            json!({
                "type": "object",
                "nullable": true,
                "additionalProperties": {"type": "string", "nullable": true},
            })
        );
        assert_eq!(
            properties["both"]["x-kubernetes-preserve-unknown-fields"],
            true
        );
        assert!(properties["both"].get("additionalProperties").is_none());
        assert_eq!(properties["hosts"]["items"]["required"], json!(["host"]));
        assert_eq!(spec.schema["x-kubernetes-preserve-unknown-fields"], true);
        assert!(spec.schema.get("required").is_none());
        assert_eq!(
            spec.relaxed,
            [
                "spec.both: additionalProperties next to properties cannot be expressed in a structural schema; keys not listed in properties are not checked",
                "spec, spec.image: required keys are not enforced at admission: Helm fills keys a custom resource leaves out from values.yaml, then checks the merged values against values.schema.json",
            ]
        );
    }

    #[test]
    fn json_schema_only_keywords_are_translated_or_dropped_and_recorded() {
        let spec = convert(&json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "$comment": "internal",
            "title": "Values",
            "type": "object",
            "if": {"properties": {"a": {"const": true}}},
            "then": {"required": ["b"]},
            "properties": {
                "replicas": {"type": "integer", "exclusiveMinimum": 0, "maximum": 10, "examples": [3], "default": 1},
                "ratio": {"type": "number", "minimum": 0.5, "exclusiveMinimum": 0},
                "when": {"type": "string", "format": "date-time"},
                "timeout": {"type": "string", "format": "duration"},
                "name": {"type": "string", "pattern": "^(?!kube-).*$"},
                "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true},
                "env": {"type": "object", "patternProperties": {"^[A-Z_]+$": {"type": "string"}}},
                "notEmpty": {"type": "string", "not": {"const": ""}},
                "tuple": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]},
                "lengthOnly": {"minLength": 2, "maxLength": 5},
            },
        }));
        let properties = &spec.schema["properties"];
        assert_eq!(spec.schema["title"], "Values");
        assert_eq!(
            properties["replicas"],
            json!({"type": "integer", "nullable": true, "minimum": 0, "exclusiveMinimum": true, "maximum": 10})
        );
        assert_eq!(properties["ratio"]["minimum"], 0.5);
        assert!(properties["ratio"].get("exclusiveMinimum").is_none());
        assert_eq!(properties["when"]["format"], "date-time");
        assert!(properties["timeout"].get("format").is_none());
        assert!(properties["name"].get("pattern").is_none());
        assert_eq!(properties["tags"]["x-kubernetes-list-type"], "set");
        assert_eq!(
            properties["env"]["additionalProperties"],
            json!({"type": "string", "nullable": true})
        );
        assert_eq!(
            properties["notEmpty"],
            json!({"type": "string", "nullable": true})
        );
        assert_eq!(
            properties["tuple"]["items"],
            json!({"x-kubernetes-preserve-unknown-fields": true})
        );
        assert_eq!(properties["lengthOnly"]["type"], "string");
        let relaxed = spec.relaxed.join("\n");
        for expected in [
            "spec.timeout: format \"duration\" is not one the API server knows; not checked",
            "spec.name: pattern \"^(?!kube-).*$\" is not valid RE2 syntax",
            "spec.env: patternProperties cannot be expressed",
            "spec.notEmpty: not cannot be expressed",
            "spec.tuple: items as a list (a tuple)",
            "spec: if/then/else cannot be expressed",
        ] {
            assert!(
                relaxed.contains(expected),
                "{expected:?} missing from\n{relaxed}"
            );
        }
        assert_eq!(spec.relaxed.len(), 6, "{relaxed}");
        let text = spec.schema.to_string();
        for gone in [
            "$comment",
            "examples",
            "default",
            "\"if\"",
            "\"then\"",
            "uniqueItems",
        ] {
            assert!(!text.contains(gone), "{gone} left in {text}");
        }
    }

    #[test]
    fn refs_stop_expanding_before_the_crd_grows_too_large() {
        let wide: Map<String, Value> = (0..40)
            .map(|i| (format!("p{i}"), json!({"$ref": "#/definitions/wide"})))
            .collect();
        let leaf: Map<String, Value> = (0..200)
            .map(|i| (format!("f{i}"), json!({"type": "string"})))
            .collect();
        let spec = convert(&json!({
            "definitions": {"wide": {"type": "object", "properties": leaf}},
            "type": "object",
            "properties": wide,
        }));
        let expanded = spec.schema["properties"]
            .as_object()
            .unwrap()
            .values()
            .filter(|node| node.get("properties").is_some())
            .count();
        assert!((20..40).contains(&expanded), "{expanded} expanded");
        assert_eq!(spec.relaxed.len(), 40 - expanded);
        assert!(
            spec.relaxed[0].contains("is not expanded"),
            "{:?}",
            spec.relaxed
        );
    }

    #[test]
    fn the_root_is_always_an_object() {
        assert_eq!(
            convert(&json!(true)).schema,
            json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true})
        );
        assert_eq!(
            convert(&json!({})).schema,
            json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true})
        );
        let spec = convert(&json!({"type": "array"}));
        assert_eq!(
            spec.schema,
            json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true})
        );
        assert_eq!(spec.relaxed.len(), 1);
        let spec = convert(&json!({"type": ["object", "null"], "additionalProperties": false}));
        assert_eq!(spec.schema, json!({"type": "object"}));
    }
}
