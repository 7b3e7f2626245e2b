//! What rendering a chart adds to the scan of its text (see [`crate::render::probe`]): kinds
//! chosen by values, objects put into other namespaces, and defaults that do not render.

use std::collections::{BTreeMap, BTreeSet};

use super::removed_apis;
use crate::chart::kinds::{Elsewhere, KindRef, KindScan, group_of};
use crate::chart::{self, Chart};
use crate::render::probe::{self, Probe, ProbeOptions, ValuesRendered};

/// What a chart creates: the text of its templates scanned (every branch) and the chart
/// rendered with the values operator-rs can try (kinds from values, namespaces), side by side.
pub fn scan_and_render(chart: &Chart) -> KindScan {
    scan_and_render_with(chart, ProbeOptions::default()).0
}

/// [`scan_and_render`], with the render run as `options` ask (see [`probe::ProbeOptions`]);
/// with the scan, which of the values tried render.
pub fn scan_and_render_with(
    chart: &Chart,
    options: ProbeOptions<'_>,
) -> (KindScan, ValuesRendered) {
    // The render is the longer chain (load, parse, render): it runs on this thread, and the
    // scan, which finishes well before it, on another.
    let (mut scan, probe) = std::thread::scope(|scope| {
        let scan = scope.spawn(|| chart::kinds::scan(chart));
        let probe = probe::probe_with(chart, options);
        let scan = scan
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (scan, probe)
    });
    add_rendered(&mut scan, &probe, chart.name());
    (scan, probe.values_rendered())
}

/// Adds what `probe` rendered of a chart to the chart's text `scan`:
/// - a kind the text does not name (it came from values) gets a place of its own, and the
///   templated `kind:` it came from is no longer an unknown: its rule is in the role now;
/// - an object rendered into another namespace is recorded in [`KindScan::elsewhere`];
/// - defaults that do not render are a note: the role then covers what the text and the ci/
///   values show.
pub fn add_rendered(scan: &mut KindScan, probe: &Probe, chart_name: &str) {
    let scanned: BTreeSet<(Option<&str>, &str)> = scan
        .kinds
        .iter()
        .map(|k| (k.group(), k.kind.as_str()))
        .collect();
    let mut added: Vec<KindRef> = Vec::new();
    // Templates that rendered a kind their text does not name.
    let mut from_values: BTreeSet<String> = BTreeSet::new();
    for object in &probe.objects {
        if object.api_version.is_empty()
            || removed_apis::removed_since(&object.api_version, &object.kind).is_some()
        {
            // The text scan already warns about a removed API; a missing apiVersion is not
            // an object the API server would take.
            continue;
        }
        let group = group_of(&object.api_version);
        let named_in_file = scan
            .kinds
            .iter()
            .any(|k| k.file == object.template && k.kind == object.kind);
        if !named_in_file {
            from_values.insert(object.template.clone());
        }
        if !scanned.contains(&(group, object.kind.as_str())) {
            added.push(KindRef {
                api_version: object.api_version.clone(),
                kind: object.kind.clone(),
                file: object.template.clone(),
                line: 0,
                api_version_templated: false,
            });
        }
        if object.elsewhere() {
            scan.elsewhere.push(Elsewhere {
                api_version: object.api_version.clone(),
                kind: object.kind.clone(),
                namespace: object.namespace.clone(),
                file: object.template.clone(),
                values: object.values.clone(),
            });
        }
    }
    scan.kinds.extend(added);
    scan.kinds
        .sort_by(|a, b| (&a.file, a.line, &a.kind).cmp(&(&b.file, b.line, &b.kind)));
    scan.kinds.dedup();
    scan.elsewhere
        .sort_by(|a, b| (&a.namespace, &a.kind, &a.file).cmp(&(&b.namespace, &b.kind, &b.file)));
    scan.elsewhere
        .dedup_by(|a, b| (&a.namespace, &a.kind, &a.file) == (&b.namespace, &b.kind, &b.file));
    // A templated `kind:` in a template that rendered what its text does not name is covered:
    // one value picks the kind, and the render saw it. Whole objects from values
    // (`extraObjects`) are covered for the kinds the chart's own values show, but a user may
    // set any other kind there: they stay unknown, with the kinds shown.
    let mut shown: Vec<((String, usize), Vec<String>)> = Vec::new();
    scan.unresolved.retain(|gap| {
        if gap.line == 0 || gap.text.contains("lookup") || !from_values.contains(&gap.file) {
            return true;
        }
        if gap.text.trim_start().starts_with("kind:") {
            return false;
        }
        let kinds: BTreeSet<String> = probe
            .objects
            .iter()
            .filter(|o| o.template == gap.file)
            .map(|o| o.kind.clone())
            .collect();
        shown.push(((gap.file.clone(), gap.line), kinds.into_iter().collect()));
        true
    });
    scan.shown.extend(shown);
    if let Some(failure) = probe.defaults_failure() {
        scan.notes.push(format!(
            "chart {chart_name} does not render with its default values ({}); the role covers \
             only what the text of the templates and the chart's ci/ values show",
            one_line(&failure.error)
        ));
    }
}

/// Namespace -> the places that render into it, for a note.
pub fn elsewhere_by_namespace(scan: &KindScan) -> BTreeMap<&str, Vec<&Elsewhere>> {
    let mut by: BTreeMap<&str, Vec<&Elsewhere>> = BTreeMap::new();
    for object in &scan.elsewhere {
        by.entry(object.namespace.as_str())
            .or_default()
            .push(object);
    }
    by
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart::kinds::Unresolved;
    use crate::render::probe::{RELEASE_NAMESPACE, RenderedObject};

    fn rendered(kind: &str, namespace: &str, template: &str) -> RenderedObject {
        RenderedObject {
            api_version: "apps/v1".to_string(),
            kind: kind.to_string(),
            namespace: namespace.to_string(),
            template: template.to_string(),
            values: "the default values".to_string(),
        }
    }

    #[test]
    fn a_kind_from_values_gets_a_place_and_its_gap_goes() {
        let mut scan = KindScan {
            unresolved: vec![Unresolved {
                file: "templates/app.yaml".to_string(),
                line: 2,
                text: "kind: {{ .Values.kind }}".to_string(),
            }],
            ..KindScan::default()
        };
        let probe = Probe {
            objects: vec![rendered(
                "StatefulSet",
                RELEASE_NAMESPACE,
                "templates/app.yaml",
            )],
            ..Probe::default()
        };
        add_rendered(&mut scan, &probe, "app");
        assert_eq!(scan.unresolved, vec![]);
        assert_eq!(scan.kinds.len(), 1);
        assert_eq!(
            (scan.kinds[0].kind.as_str(), scan.kinds[0].line),
            ("StatefulSet", 0)
        );
        assert_eq!(scan.elsewhere, vec![]);
    }

    /// A scan with one place of whole objects from values, and that place.
    fn extra_objects_gap() -> (Unresolved, KindScan) {
        let gap = Unresolved {
            file: "templates/extra.yaml".to_string(),
            line: 3,
            text: "{{ toYaml . }}".to_string(),
        };
        let scan = KindScan {
            unresolved: vec![gap.clone()],
            ..KindScan::default()
        };
        (gap, scan)
    }

    #[test]
    fn extra_objects_that_render_nothing_stay_unknown() {
        let (gap, mut scan) = extra_objects_gap();
        add_rendered(&mut scan, &Probe::default(), "app");
        assert_eq!(scan.unresolved, vec![gap]);
    }

    #[test]
    fn an_object_in_another_namespace_is_recorded() {
        let mut scan = KindScan::default();
        let probe = Probe {
            objects: vec![rendered("Deployment", "kube-system", "templates/app.yaml")],
            ..Probe::default()
        };
        add_rendered(&mut scan, &probe, "app");
        assert_eq!(scan.elsewhere.len(), 1);
        assert_eq!(scan.elsewhere[0].namespace, "kube-system");
    }

    #[test]
    fn extra_objects_that_render_keep_their_gap_with_the_kinds_shown() {
        let (gap, mut scan) = extra_objects_gap();
        let probe = Probe {
            objects: vec![rendered("Deployment", "", "templates/extra.yaml")],
            ..Probe::default()
        };
        add_rendered(&mut scan, &probe, "app");
        assert_eq!(scan.unresolved, vec![gap]);
        assert_eq!(
            scan.shown.get(&("templates/extra.yaml".to_string(), 3)),
            Some(&vec!["Deployment".to_string()])
        );
        assert!(scan.kinds.iter().any(|k| k.kind == "Deployment"));
    }
}
