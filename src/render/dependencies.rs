//! Which subcharts take part in a render, and what they give their parent, as Helm decides it
//! before rendering: `alias` renames a copy of a subchart, `tags` and `condition` switch
//! subcharts off, and `import-values` lift a child's values into its parent's defaults.

use serde_json::Value;

use super::tree::{ChartNode, Dependency};
use super::values::{self, Values, Warnings};
use crate::chart::version::VersionSpec;

/// Applies `alias`, `tags`, `condition` and `import-values` to the chart tree, for `user`
/// values (Helm's ProcessDependencies, with merging as `helm install` does).
pub fn process(chart: &mut ChartNode, user: &Values, warnings: &mut Warnings) {
    process_enabled(chart, user, "", warnings);
    process_import_values(chart, warnings);
}

/// Helm's IsCompatibleRange: the version satisfies the constraint (an empty or bad constraint
/// matches nothing).
fn compatible(constraint: &str, version: &str) -> bool {
    if constraint.trim().is_empty() {
        return false;
    }
    match VersionSpec::parse(Some(constraint)) {
        Ok(VersionSpec::Latest) | Err(_) => false,
        Ok(spec) => {
            crate::chart::version::parse_version(version).is_some() && spec.matches(version)
        }
    }
}

fn process_enabled(chart: &mut ChartNode, user: &Values, path: &str, warnings: &mut Warnings) {
    let Some(mut requirements) = chart.metadata.dependencies.take() else {
        return;
    };
    let existing = std::mem::take(&mut chart.dependencies);
    // Subcharts in charts/ that no requirement names are kept as they are.
    let mut deps: Vec<ChartNode> = existing
        .iter()
        .filter(|sub| {
            !requirements
                .iter()
                .any(|r| r.name == sub.name() && compatible(&r.version, &sub.metadata.version))
        })
        .cloned()
        .collect();
    for requirement in requirements.iter_mut() {
        if let Some(found) = existing.iter().find(|sub| {
            sub.name() == requirement.name
                && compatible(&requirement.version, &sub.metadata.version)
        }) {
            let mut copy = found.clone();
            if !requirement.alias.is_empty() {
                copy.metadata.name = requirement.alias.clone();
            }
            deps.push(copy);
        }
        if !requirement.alias.is_empty() {
            requirement.name = requirement.alias.clone();
        }
        requirement.enabled = true;
    }
    chart.dependencies = deps;
    chart.metadata.dependencies = Some(requirements);

    let coalesced = values::coalesce_values(chart, user, warnings);
    let requirements = chart.metadata.dependencies.as_mut().into_iter().flatten();
    let requirements: Vec<&mut Dependency> = requirements.collect();
    apply_tags(requirements, &coalesced, warnings);
    let requirements = chart.metadata.dependencies.as_mut().into_iter().flatten();
    apply_conditions(requirements.collect(), &coalesced, path, warnings);

    let disabled: Vec<String> = chart
        .metadata
        .dependencies
        .iter()
        .flatten()
        .filter(|r| !r.enabled)
        .map(|r| r.name.clone())
        .collect();
    chart
        .dependencies
        .retain(|d| !disabled.iter().any(|n| n == d.name()));
    if let Some(requirements) = chart.metadata.dependencies.as_mut() {
        requirements.retain(|r| !disabled.contains(&r.name));
    }
    for sub in chart.dependencies.iter_mut() {
        let sub_path = format!("{path}{}.", sub.name());
        process_enabled(sub, &coalesced, &sub_path, warnings);
    }
}

fn apply_tags(requirements: Vec<&mut Dependency>, values: &Values, warnings: &mut Warnings) {
    let Some(Value::Object(tags)) = values.get("tags") else {
        return;
    };
    for requirement in requirements {
        let (mut any_true, mut any_false) = (false, false);
        for tag in &requirement.tags {
            match tags.get(tag) {
                Some(Value::Bool(true)) => any_true = true,
                Some(Value::Bool(false)) => any_false = true,
                Some(_) => warnings.0.push(format!(
                    "tag {tag} of dependency {} is not a boolean; ignored",
                    requirement.name
                )),
                None => {}
            }
        }
        if !any_true && any_false {
            requirement.enabled = false;
        } else if any_true || !any_false {
            requirement.enabled = true;
        }
    }
}

fn apply_conditions(
    requirements: Vec<&mut Dependency>,
    values: &Values,
    path: &str,
    warnings: &mut Warnings,
) {
    for requirement in requirements {
        for condition in requirement.condition.trim().split(',') {
            if condition.is_empty() {
                continue;
            }
            match values::path_value(values, &format!("{path}{condition}")) {
                Some(Value::Bool(enabled)) => {
                    requirement.enabled = *enabled;
                    break;
                }
                Some(_) => warnings.0.push(format!(
                    "condition {condition} of dependency {} is not a boolean; ignored",
                    requirement.name
                )),
                None => {}
            }
        }
    }
}

fn process_import_values(chart: &mut ChartNode, warnings: &mut Warnings) {
    for sub in chart.dependencies.iter_mut() {
        process_import_values(sub, warnings);
    }
    let Some(requirements) = chart.metadata.dependencies.clone() else {
        return;
    };
    let merged = values::merge_values(chart, &Values::new(), warnings);
    let mut imported = Values::new();
    let mut rewritten = Vec::new();
    for requirement in &requirements {
        let mut normalised = Vec::new();
        for import in &requirement.import_values {
            let (child, parent) = match import {
                Value::Object(map) => (go_text(map.get("child")), go_text(map.get("parent"))),
                Value::String(name) => (format!("exports.{name}"), ".".to_string()),
                _ => continue,
            };
            let mut entry = serde_json::Map::new();
            entry.insert("child".into(), Value::String(child.clone()));
            entry.insert("parent".into(), Value::String(parent.clone()));
            normalised.push(Value::Object(entry));
            let Some(table) = values::table(&merged, &format!("{}.{child}", requirement.name))
            else {
                warnings.0.push(format!(
                    "import-values of dependency {}: no table {child} in its values",
                    requirement.name
                ));
                continue;
            };
            values::merge_tables_into(
                &mut imported,
                values::path_to_map(&parent, table.clone()),
                warnings,
            );
        }
        let mut requirement = requirement.clone();
        requirement.import_values = normalised;
        rewritten.push(requirement);
    }
    chart.metadata.dependencies = Some(rewritten);
    let mut merged = merged;
    // Imported values rank below the parent's own: the parent can override what it imports.
    values::merge_tables_into(&mut merged, imported, warnings);
    chart.values = merged;
}

/// Go's `%v` of an optional value in a map: `<nil>` when absent.
fn go_text(value: Option<&Value>) -> String {
    match value {
        None | Some(Value::Null) => "<nil>".to_string(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart::Chart;
    use std::collections::BTreeMap;

    fn node(files: &[(&str, &str)]) -> ChartNode {
        let files: BTreeMap<String, Vec<u8>> = files
            .iter()
            .map(|(k, v)| (k.to_string(), v.as_bytes().to_vec()))
            .collect();
        ChartNode::load(&Chart::from_files("top", files).unwrap(), false).unwrap()
    }

    const PARENT: &str = "apiVersion: v2\nname: top\nversion: 1.0.0\ndependencies:\n- name: sub\n  version: 1.x\n  alias: first\n  condition: first.enabled\n  import-values:\n  - data\n  - child: inner\n    parent: lifted\n- name: sub\n  version: 1.x\n  alias: second\n  tags: [extra]\n";

    fn chart() -> ChartNode {
        node(&[
            ("Chart.yaml", PARENT),
            ("values.yaml", "tags:\n  extra: false\n"),
            (
                "charts/sub/Chart.yaml",
                "apiVersion: v2\nname: sub\nversion: 1.2.0\n",
            ),
            (
                "charts/sub/values.yaml",
                "enabled: true\nexports:\n  data:\n    shared: 1\ninner:\n  deep: x\n",
            ),
        ])
    }

    #[test]
    fn aliases_tags_and_import_values() {
        let mut c = chart();
        process(&mut c, &Values::new(), &mut Warnings::default());
        let names: Vec<&str> = c.dependencies.iter().map(|d| d.name()).collect();
        assert_eq!(names, vec!["first"], "the tag switched `second` off");
        assert_eq!(c.values["shared"], serde_json::json!(1.0));
        assert_eq!(c.values["lifted"]["deep"], serde_json::json!("x"));
    }

    #[test]
    fn a_condition_in_user_values_switches_a_subchart_off() {
        let mut c = chart();
        let user = values::from_yaml("first:\n  enabled: false\ntags:\n  extra: true\n").unwrap();
        process(&mut c, &user, &mut Warnings::default());
        let names: Vec<&str> = c.dependencies.iter().map(|d| d.name()).collect();
        assert_eq!(names, vec!["second"]);
    }
}
