//! Least-privilege RBAC rules from the kinds an operator manages.
//!
//! A Helm operator's first deploy fails when its role misses one kind of the chart, and the
//! usual fix, `*` on everything, is worse than the failure. So the rules here are built from
//! what the chart's templates create ([`crate::chart::kinds`]), with exactly the verbs the
//! helm-operator uses, plus what the operator itself needs; each rule carries a comment that
//! says why it is there, and nothing is a wildcard.

pub mod from_render;
pub mod known_kinds;
mod merge;
pub mod removed_apis;
mod render;

use std::collections::{BTreeMap, BTreeSet};

use crate::chart::kinds::{KindRef, KindScan, Unresolved, group_of};
use crate::names::pluralize;

pub use merge::merge;
pub use render::{RoleFile, RulesError, roles_from_yaml, rules_from_yaml, rules_yaml};

/// One PolicyRule of a Role or ClusterRole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    pub api_groups: Vec<String>,
    pub resources: Vec<String>,
    pub verbs: Vec<String>,
    /// Why the rule exists; one `#` comment line per text line in the generated file.
    pub comment: Option<String>,
}

impl Rule {
    /// A rule on one group, with resources and verbs sorted so equal rules compare equal.
    pub fn new<R: Into<String>>(
        group: &str,
        resources: impl IntoIterator<Item = R>,
        verbs: &[&str],
        comment: impl Into<String>,
    ) -> Self {
        let resources: BTreeSet<String> = resources.into_iter().map(Into::into).collect();
        let verbs: BTreeSet<String> = verbs.iter().map(|v| v.to_string()).collect();
        let comment = wrap(&comment.into(), COMMENT_WIDTH);
        Rule {
            api_groups: vec![group.to_string()],
            resources: resources.into_iter().collect(),
            verbs: verbs.into_iter().collect(),
            comment: (!comment.is_empty()).then_some(comment),
        }
    }

    /// Whether this rule grants `verb` on `resource` in `group` (a `*` written by hand in an
    /// existing role counts).
    pub fn allows(&self, group: &str, resource: &str, verb: &str) -> bool {
        let has = |list: &[String], value: &str| list.iter().any(|v| v == value || v == "*");
        has(&self.api_groups, group) && has(&self.resources, resource) && has(&self.verbs, verb)
    }
}

/// `text` as `#` comment lines wrapped to fit 90 columns, each ending in a newline.
pub fn comment_lines(text: &str) -> String {
    wrap(text, COMMENT_WIDTH)
        .lines()
        .map(|line| format!("# {line}\n"))
        .collect()
}

/// Comment lines are wrapped to this width, so that `# ` and the text fit in 90 columns.
const COMMENT_WIDTH: usize = 88;

/// Wraps each line of `text` at word boundaries to `width` columns (a longer word stays whole).
fn wrap(text: &str, width: usize) -> String {
    let mut out: Vec<String> = Vec::new();
    for paragraph in text.lines() {
        let mut line = String::new();
        for word in paragraph.split_whitespace() {
            if !line.is_empty() && line.len() + 1 + word.len() > width {
                out.push(std::mem::take(&mut line));
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
        out.push(line);
    }
    out.join("\n")
}

/// The rules an operator needs, and what the user should know about them.
///
/// The helm-operator watches custom resources in its own namespace (`WATCH_NAMESPACE`), and
/// every release it installs lives there: its Secrets and every namespaced object of the chart.
/// So nearly everything is a Role's; only what a Role cannot grant goes into a ClusterRole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RbacPlan {
    /// The Role's rules, in the operator's namespace (bound by a RoleBinding there).
    pub rules: Vec<Rule>,
    /// The ClusterRole's rules: cluster-scoped kinds and reads across every namespace, bound by
    /// a ClusterRoleBinding. Empty when the Role is enough.
    pub cluster_rules: Vec<Rule>,
    /// Why there is a ClusterRole, one short phrase each (`ClusterRole`, `PriorityClass`,
    /// `CustomResourceDefinition (read with lookup)`); empty when there is none.
    pub cluster_reasons: Vec<String>,
    /// One line each: kinds that could not be determined, kinds not in the table, templates
    /// for APIs no supported Kubernetes serves.
    pub warnings: Vec<String>,
}

impl RbacPlan {
    pub fn needs_cluster_role(&self) -> bool {
        !self.cluster_rules.is_empty()
    }
}

/// A custom resource the operator reconciles.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedApi {
    pub group: String,
    pub plural: String,
}

/// What the helm-operator does to the objects of a release: installs them (create), upgrades
/// them (patch; update when an upgrade is forced), uninstalls them and runs hook deletion
/// policies (delete), and reads and watches them to revert drift and wait for hooks (get,
/// list, watch).
pub const RELEASE_VERBS: &[&str] = &[
    "create", "delete", "get", "list", "patch", "update", "watch",
];

/// A kind as the API server serves it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Resource {
    pub group: String,
    pub plural: String,
    pub namespaced: bool,
    /// Found in [`known_kinds`]; otherwise the plural is a guess and the scope an assumption.
    pub known: bool,
}

/// The resource for a kind in `group` (`None` when the template computes the group): the
/// table's entry, or else the pluralised kind, assumed namespaced (`known: false`). `None`
/// when neither the group nor the kind is known.
pub fn resolve(group: Option<&str>, kind: &str) -> Option<Resource> {
    let entry = match group {
        Some(group) => known_kinds::lookup(group, kind),
        None => known_kinds::lookup_kind(kind),
    };
    match (entry, group) {
        (Some(known), _) => Some(Resource {
            group: known.group.to_string(),
            plural: known.plural.to_string(),
            namespaced: known.namespaced,
            known: true,
        }),
        (None, Some(group)) => Some(Resource {
            group: group.to_string(),
            plural: pluralize(&kind.to_ascii_lowercase()),
            namespaced: true,
            known: false,
        }),
        (None, None) => None,
    }
}

/// Rules for the operator's own custom resources: all verbs on the resources, the status
/// subresource, and finalizers.
pub fn custom_resource_rules(apis: &[OwnedApi]) -> Vec<Rule> {
    let mut by_group: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for api in apis {
        by_group.entry(&api.group).or_default().insert(&api.plural);
    }
    let mut rules = Vec::new();
    for (group, plurals) in by_group {
        rules.push(Rule::new(
            group,
            plurals.iter().copied(),
            RELEASE_VERBS,
            "The custom resources this operator reconciles: it gets, lists and watches them, and \
             updates them to add and remove its finalizer; create, delete and patch complete the \
             set operator-sdk grants, so the operator's account can manage them.",
        ));
        rules.push(Rule::new(
            group,
            plurals.iter().map(|p| format!("{p}/status")),
            &["get", "patch", "update"],
            "Their status subresource, where the operator reports what it did.",
        ));
        rules.push(Rule::new(
            group,
            plurals.iter().map(|p| format!("{p}/finalizers")),
            &["update"],
            "Owner references with blockOwnerDeletion on the objects it creates require update on \
             the owner's finalizers (OwnerReferencesPermissionEnforcement admission plugin).",
        ));
    }
    rules
}

/// The rule for recording Events. The helm-operator (controller-runtime 0.21) records them
/// through the core v1 API only, for its reconciler and for leader election.
pub fn event_rules() -> Vec<Rule> {
    vec![Rule::new(
        "",
        ["events"],
        &["create", "patch"],
        "Events on custom resources and on leader election (create; patch to count repeats).",
    )]
}

/// The rule for leader election on a Lease (`--leader-elect`), so that only one replica
/// reconciles at a time.
pub fn leader_election_rules() -> Vec<Rule> {
    vec![Rule::new(
        "coordination.k8s.io",
        ["leases"],
        &[
            "create", "delete", "get", "list", "patch", "update", "watch",
        ],
        "Leader election (--leader-elect): the replicas share one Lease.",
    )]
}

/// Rules for the helm-operator running the given charts' custom resources.
pub fn helm_operator_rules(scans: &[&KindScan], apis: &[OwnedApi]) -> RbacPlan {
    let mut plan = RbacPlan {
        rules: custom_resource_rules(apis),
        cluster_rules: Vec::new(),
        cluster_reasons: Vec::new(),
        warnings: Vec::new(),
    };
    let created = release_objects(scans, &mut plan);
    plan.rules.push(secrets_rule(scans, &created));
    plan.rules.extend(event_rules());
    plan.rules.extend(leader_election_rules());
    plan.rules.push(Rule::new(
        "",
        ["namespaces"],
        &["get"],
        "operator-sdk's helm-operator role grants get on namespaces so that the operator can \
         check that the namespace of a release exists; in a Role this is its own namespace only.",
    ));

    for (group, resources) in &created {
        let kinds = |namespaced: bool| -> Vec<String> {
            let names: BTreeSet<&str> = resources
                .values()
                .filter(|r| r.namespaced == namespaced)
                .flat_map(|r| r.kinds.iter().map(String::as_str))
                .collect();
            names.into_iter().map(str::to_string).collect()
        };
        let namespaced: Vec<&str> = resources
            .iter()
            .filter(|(plural, r)| r.namespaced && !(group.is_empty() && *plural == "secrets"))
            .map(|(plural, _)| plural.as_str())
            .collect();
        let cluster: Vec<&str> = resources
            .iter()
            .filter(|(_, r)| !r.namespaced)
            .map(|(plural, _)| plural.as_str())
            .collect();
        if !namespaced.is_empty() {
            let names: Vec<String> = kinds(true)
                .into_iter()
                .filter(|k| !(group.is_empty() && k == "Secret"))
                .collect();
            plan.rules.push(Rule::new(
                group,
                namespaced,
                RELEASE_VERBS,
                format!(
                    "Objects the chart creates ({}): the helm-operator installs, upgrades and \
                     uninstalls them in the release's namespace, and watches them to revert drift.",
                    names.join(", ")
                ),
            ));
        }
        if !cluster.is_empty() {
            plan.cluster_rules.push(Rule::new(
                group,
                cluster,
                RELEASE_VERBS,
                format!(
                    "Cluster-scoped objects the chart creates ({}): a Role cannot grant them, and \
                     the helm-operator lists and watches them across the cluster to revert drift.",
                    kinds(false).join(", ")
                ),
            ));
        }
    }
    lookup_rules(scans, &mut plan);
    elsewhere_rules(scans, &mut plan);
    privilege_rules(&created, &mut plan);
    for scan in scans {
        plan.warnings.extend(scan.notes.iter().cloned());
    }
    plan
}

/// Objects a chart renders into a namespace other than its release's: the Role, bound in the
/// operator's namespace, does not reach them, so the ClusterRole grants their kinds.
fn elsewhere_rules(scans: &[&KindScan], plan: &mut RbacPlan) {
    // (group, plural) -> (kinds, namespaces, places)
    type Landing = (BTreeSet<String>, BTreeSet<String>, BTreeSet<String>);
    let mut landing: BTreeMap<(String, String), Landing> = BTreeMap::new();
    for scan in scans {
        for (namespace, objects) in from_render::elsewhere_by_namespace(scan) {
            for object in objects {
                let Some(resource) = resolve(group_of(&object.api_version), &object.kind) else {
                    continue;
                };
                if !resource.namespaced {
                    continue;
                }
                let entry = landing
                    .entry((resource.group, resource.plural))
                    .or_default();
                entry.0.insert(object.kind.clone());
                entry.1.insert(namespace.to_string());
                entry
                    .2
                    .insert(format!("{} with {}", object.file, object.values));
            }
        }
    }
    for ((group, plural), (kinds, namespaces, places)) in landing {
        let kinds: Vec<String> = kinds.into_iter().collect();
        let namespaces: Vec<String> = namespaces.into_iter().collect();
        for kind in &kinds {
            add_reason(
                plan,
                &format!("{kind} in namespace {}", namespaces.join(", ")),
            );
        }
        plan.warnings.push(format!(
            "the chart renders {} into namespace {} ({}), not into the release's: the \
             ClusterRole grants \"{plural}\" in every namespace so that the operator reaches \
             them; to narrow it, move that rule into a Role in {} bound to the operator's \
             service account",
            kinds.join(", "),
            namespaces.join(", "),
            places.into_iter().collect::<Vec<_>>().join("; "),
            namespaces.join(", "),
        ));
        plan.cluster_rules.push(Rule::new(
            &group,
            [plural.as_str()],
            RELEASE_VERBS,
            format!(
                "{} that the chart renders into namespace {}, outside the release's namespace: \
                 a Role in the operator's namespace does not reach them.",
                kinds.join(", "),
                namespaces.join(", ")
            ),
        ));
    }
}

/// Helm stores every revision of a release in a Secret: the helm-operator creates them, reads
/// them through a watch, updates and deletes them (never patches). A chart that writes Secrets
/// of its own, in a template or from values (`extraObjects`), has them patched on upgrade.
fn secrets_rule(scans: &[&KindScan], created: &Created) -> Rule {
    let storage = "Helm release storage: every revision of a release is a Secret that the \
                   helm-operator creates, reads through a watch, updates and deletes.";
    let from_templates: Vec<&str> = scans
        .iter()
        .flat_map(|s| &s.kinds)
        .filter(|k| k.kind == "Secret" && k.group() == Some(""))
        .map(|k| k.file.as_str())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let from_values: Vec<String> = scans
        .iter()
        .flat_map(|s| &s.unresolved)
        .filter(|u| u.line > 0 && !u.text.contains("lookup"))
        .map(|u| format!("{}:{}", u.file, u.line))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let creates_secrets = created
        .get("")
        .is_some_and(|core| core.contains_key("secrets"));
    if !creates_secrets && from_values.is_empty() {
        return Rule::new(
            "",
            ["secrets"],
            &["create", "delete", "get", "list", "update", "watch"],
            storage,
        );
    }
    let mut why = Vec::new();
    if !from_templates.is_empty() {
        why.push(format!("Secrets in {}", from_templates.join(", ")));
    }
    if !from_values.is_empty() {
        why.push(format!(
            "objects from values at {}, often Secrets",
            from_values.join(", ")
        ));
    }
    Rule::new(
        "",
        ["secrets"],
        RELEASE_VERBS,
        format!(
            "{storage}\nThe chart writes Secrets of its own ({}), which upgrades patch: every verb \
             the helm-operator uses.",
            why.join("; ")
        ),
    )
}

/// A resource the charts create.
#[derive(Debug, Default)]
struct CreatedResource {
    namespaced: bool,
    /// The kinds written in the templates (one, unless a table entry is shared).
    kinds: BTreeSet<String>,
}

/// Group -> resource plural -> what is created.
type Created = BTreeMap<String, BTreeMap<String, CreatedResource>>;

/// Records that a ClusterRole is needed, and why.
fn add_reason(plan: &mut RbacPlan, reason: &str) {
    if !plan.cluster_reasons.iter().any(|r| r == reason) {
        plan.cluster_reasons.push(reason.to_string());
    }
}

fn unresolved_warning(gap: &Unresolved, shown: Option<&Vec<String>>) -> String {
    if let Some(kinds) = shown {
        format!(
            "{}:{}: the objects `{}` creates come from values; with the chart's own values they \
             are {}, which the role covers: add rules to deploy/role.yaml for any other kind you \
             set there",
            gap.file,
            gap.line,
            gap.text,
            kinds.join(", ")
        )
    } else if gap.line == 0 {
        format!(
            "{}: {}; the kinds it creates are unknown, so the role has no rules for them: add \
             them to deploy/role.yaml by hand",
            gap.file, gap.text
        )
    } else {
        format!(
            "{}:{}: the kind of the objects `{}` creates cannot be read from the chart (it comes \
             from values at install time), so the role has no rule for them; add rules to \
             deploy/role.yaml for the kinds you set there",
            gap.file, gap.line, gap.text
        )
    }
}

/// The kinds a chart creates that a supported cluster serves. A template for a removed API
/// (see [`removed_apis`]) gets no rule, or, when it picks its apiVersion at render time and
/// the kind lives on in another version, the rule of the kind's current group; either way a
/// warning names it.
fn served_kinds<'s>(
    scans: &[&'s KindScan],
    plan: &mut RbacPlan,
) -> Vec<(Option<String>, &'s KindRef)> {
    // One place (file, line, kind) may offer several apiVersions.
    let mut places: BTreeMap<(&str, usize, &str), Vec<&KindRef>> = BTreeMap::new();
    for scan in scans {
        for found in &scan.kinds {
            places
                .entry((found.file.as_str(), found.line, found.kind.as_str()))
                .or_default()
                .push(found);
        }
    }
    let mut out = Vec::new();
    for ((file, line, kind), refs) in places {
        let (removed, current): (Vec<&KindRef>, Vec<&KindRef>) = refs
            .into_iter()
            .partition(|k| removed_apis::removed_since(&k.api_version, kind).is_some());
        let Some(first) = removed.first() else {
            out.extend(
                current
                    .into_iter()
                    .map(|k| (k.group().map(str::to_string), k)),
            );
            continue;
        };
        let gone: Vec<String> = removed
            .iter()
            .map(|k| {
                format!(
                    "{} (not served since Kubernetes {})",
                    k.api_version,
                    removed_apis::removed_since(&k.api_version, kind).unwrap_or("?")
                )
            })
            .collect();
        let head = format!(
            "{file}:{line}: {kind} of {}: operator-rs supports Kubernetes {} and later",
            gone.join(", "),
            removed_apis::OLDEST_SUPPORTED
        );
        if !current.is_empty() {
            let served: Vec<&str> = current.iter().map(|k| k.api_version.as_str()).collect();
            plan.warnings.push(format!(
                "{head}, so the role covers only the {} the template also offers",
                served.join(", ")
            ));
            out.extend(
                current
                    .into_iter()
                    .map(|k| (k.group().map(str::to_string), k)),
            );
            continue;
        }
        let successor = known_kinds::lookup_kind(kind)
            .filter(|_| removed.iter().any(|k| k.api_version_templated));
        match successor {
            Some(known) => {
                plan.warnings.push(format!(
                    "{head}; the template picks its apiVersion when it renders, so the role has \
                     the rule for {kind} in the group it is served in now (\"{}\")",
                    known.group
                ));
                out.push((Some(known.group.to_string()), *first));
            }
            None => plan.warnings.push(format!(
                "{head}, where the template never renders, so the role has no rule for it"
            )),
        }
    }
    out
}

fn release_objects(scans: &[&KindScan], plan: &mut RbacPlan) -> Created {
    let mut created: Created = BTreeMap::new();
    // (group, kind) -> places, so each unknown kind is one warning.
    let mut unknown: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    let mut no_group: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (group, found) in served_kinds(scans, plan) {
        let place = if found.line == 0 {
            format!("{} (rendered)", found.file)
        } else {
            format!("{}:{}", found.file, found.line)
        };
        let Some(resource) = resolve(group.as_deref(), &found.kind) else {
            no_group.entry(found.kind.clone()).or_default().push(place);
            continue;
        };
        if !resource.known {
            unknown
                .entry((resource.group.clone(), found.kind.clone()))
                .or_default()
                .push(place);
        }
        if !resource.namespaced {
            add_reason(plan, &found.kind);
        }
        let entry = created
            .entry(resource.group)
            .or_default()
            .entry(resource.plural)
            .or_insert_with(|| CreatedResource {
                namespaced: resource.namespaced,
                kinds: BTreeSet::new(),
            });
        entry.kinds.insert(found.kind.clone());
    }
    for scan in scans {
        for gap in &scan.unresolved {
            let shown = scan.shown.get(&(gap.file.clone(), gap.line));
            plan.warnings.push(unresolved_warning(gap, shown));
        }
    }
    for ((group, kind), places) in unknown {
        let plural = pluralize(&kind.to_ascii_lowercase());
        plan.warnings.push(format!(
            "kind {kind} (group \"{group}\", {}) is not in operator-rs's table of known kinds: \
             the role grants resource \"{plural}\" and assumes it is namespaced; check both with \
             `kubectl api-resources --api-group={group}`",
            places.join(", ")
        ));
    }
    for (kind, places) in no_group {
        plan.warnings.push(format!(
            "kind {kind} ({}) has an apiVersion computed at install time and is not in \
             operator-rs's table of known kinds, so the role has no rule for it; add one by hand",
            places.join(", ")
        ));
    }
    created
}

/// One read a template makes with `lookup`.
struct Read {
    group: String,
    plural: String,
    kind: String,
    verb: &'static str,
    /// Across namespaces, or of a cluster-scoped kind: only a ClusterRole grants it.
    cluster: bool,
    namespaced: bool,
}

/// `get` (or `list`) on what templates read with Helm's `lookup` and the roles do not grant
/// already: Helm fails the install when such a read is forbidden. A read of a cluster-scoped
/// kind, or across every namespace (`lookup ... ""`), goes into the ClusterRole.
fn lookup_rules(scans: &[&KindScan], plan: &mut RbacPlan) {
    let mut reads: Vec<Read> = Vec::new();
    for scan in scans {
        for lookup in &scan.lookups {
            if let Some(since) = removed_apis::removed_since(&lookup.api_version, &lookup.kind) {
                plan.warnings.push(format!(
                    "{}:{}: `lookup` of {} {} reads an API not served since Kubernetes {since} \
                     (operator-rs supports {} and later): it finds nothing there, so the role has \
                     no rule for it",
                    lookup.file,
                    lookup.line,
                    lookup.api_version,
                    lookup.kind,
                    removed_apis::OLDEST_SUPPORTED
                ));
                continue;
            }
            let Some(resource) = resolve(group_of(&lookup.api_version), &lookup.kind) else {
                continue;
            };
            let cluster = !resource.namespaced || lookup.all_namespaces;
            let verb = if lookup.lists { "list" } else { "get" };
            let granted = if cluster {
                &plan.cluster_rules
            } else {
                &plan.rules
            };
            if granted
                .iter()
                .any(|r| r.allows(&resource.group, &resource.plural, verb))
            {
                continue;
            }
            if !resource.known {
                plan.warnings.push(format!(
                    "kind {} (group \"{}\", read by `lookup` at {}:{}) is not in operator-rs's \
                     table of known kinds: the role grants reading resource \"{}\"; check it with \
                     `kubectl api-resources --api-group={}`",
                    lookup.kind,
                    resource.group,
                    lookup.file,
                    lookup.line,
                    resource.plural,
                    resource.group
                ));
            }
            if cluster {
                let reason = if resource.namespaced {
                    format!("{} in every namespace (read with lookup)", lookup.kind)
                } else {
                    format!("{} (read with lookup)", lookup.kind)
                };
                add_reason(plan, &reason);
            }
            reads.push(Read {
                group: resource.group,
                plural: resource.plural,
                kind: lookup.kind.clone(),
                verb,
                cluster,
                namespaced: resource.namespaced,
            });
        }
    }
    for cluster in [false, true] {
        // Group -> verbs -> resources, so no resource gets a verb it does not need.
        let mut by_group: BTreeMap<&str, BTreeMap<Vec<&str>, BTreeSet<&str>>> = BTreeMap::new();
        let mut kinds: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        let mut verbs: BTreeMap<(&str, &str), BTreeSet<&str>> = BTreeMap::new();
        for read in reads.iter().filter(|r| r.cluster == cluster) {
            verbs
                .entry((&read.group, &read.plural))
                .or_default()
                .insert(read.verb);
            kinds.entry(&read.group).or_default().insert(&read.kind);
        }
        for ((group, plural), set) in verbs {
            by_group
                .entry(group)
                .or_default()
                .entry(set.into_iter().collect())
                .or_default()
                .insert(plural);
        }
        for (group, by_verbs) in by_group {
            let names = kinds[group].iter().copied().collect::<Vec<_>>().join(", ");
            for (verbs, plurals) in by_verbs {
                let rule = if cluster {
                    let across = reads.iter().any(|r| {
                        r.cluster
                            && r.namespaced
                            && r.group == group
                            && plurals.contains(&*r.plural)
                    });
                    let scope = if across {
                        "in every namespace (`lookup` with the namespace \"\")"
                    } else {
                        "of cluster-scoped kinds"
                    };
                    Rule::new(
                        group,
                        plurals,
                        &verbs,
                        format!(
                            "The chart's templates read existing {names} with Helm's `lookup`, \
                             {scope}, which only a ClusterRole grants; Helm fails the install \
                             when that read is forbidden."
                        ),
                    )
                } else {
                    Rule::new(
                        group,
                        plurals,
                        &verbs,
                        format!(
                            "The chart's templates read existing {names} with Helm's `lookup`; \
                             Helm fails the install when that read is forbidden."
                        ),
                    )
                };
                if cluster {
                    plan.cluster_rules.push(rule);
                } else {
                    plan.rules.push(rule);
                }
            }
        }
    }
}

/// `escalate` and `bind` when the chart creates RBAC objects: the API server refuses to let
/// anyone create a Role or ClusterRole granting permissions they do not hold themselves
/// unless they have `escalate` on it, and refuses a binding to a role whose permissions they
/// do not hold unless they have `bind` on that role. Both are checked where the object goes:
/// Roles and RoleBindings in the release's namespace (a Role grants it), ClusterRoles and
/// ClusterRoleBindings at cluster scope (only a ClusterRole does).
fn privilege_rules(created: &Created, plan: &mut RbacPlan) {
    let Some(rbac) = created.get("rbac.authorization.k8s.io") else {
        return;
    };
    let creates = |plural: &str| rbac.contains_key(plural);
    let escalate = "The chart creates {what}. The API server refuses to create a role that grants \
                    permissions its creator does not hold, unless the creator has escalate on it; \
                    the operator cannot hold every permission the chart's roles grant, so it needs \
                    escalate.";
    let bind = "The chart creates {what}. The API server refuses to bind a role whose permissions \
                the creator does not hold, unless the creator has bind on that role.";
    if creates("roles") {
        plan.rules.push(Rule::new(
            "rbac.authorization.k8s.io",
            ["roles"],
            &["escalate"],
            escalate.replace("{what}", "Roles"),
        ));
    }
    if creates("rolebindings") {
        // A RoleBinding may refer to a Role or a ClusterRole; either is checked in the
        // binding's namespace.
        plan.rules.push(Rule::new(
            "rbac.authorization.k8s.io",
            ["clusterroles", "roles"],
            &["bind"],
            bind.replace("{what}", "RoleBindings"),
        ));
    }
    if creates("clusterroles") {
        plan.cluster_rules.push(Rule::new(
            "rbac.authorization.k8s.io",
            ["clusterroles"],
            &["escalate"],
            escalate.replace("{what}", "ClusterRoles"),
        ));
    }
    if creates("clusterrolebindings") {
        plan.cluster_rules.push(Rule::new(
            "rbac.authorization.k8s.io",
            ["clusterroles"],
            &["bind"],
            bind.replace("{what}", "ClusterRoleBindings"),
        ));
    }
}

#[cfg(test)]
mod tests;
