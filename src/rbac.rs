//! Least-privilege RBAC rules from the kinds an operator manages.
//!
//! A Helm operator's first deploy fails when its role misses one kind of the chart, and the
//! usual fix, `*` on everything, is worse than the failure. So the rules here are built from
//! what the chart's templates create ([`crate::chart::kinds`]), with exactly the verbs the
//! helm-operator uses, plus what the operator itself needs; each rule carries a comment that
//! says why it is there, and nothing is a wildcard.

pub mod known_kinds;
mod merge;
mod render;

use std::collections::{BTreeMap, BTreeSet};

use crate::chart::kinds::{KindScan, Unresolved, group_of};
use crate::names::pluralize;

pub use merge::merge;
pub use render::{RulesError, rules_from_yaml, rules_yaml};

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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RbacPlan {
    /// Something needs cluster scope (a cluster-scoped kind, or a read across namespaces): the
    /// role must be a ClusterRole bound by a ClusterRoleBinding.
    pub cluster_scoped: bool,
    /// Why it is cluster-scoped, one short phrase each (`ClusterRole`, `PriorityClass`,
    /// `CustomResourceDefinition (read with lookup)`); empty when it is not.
    pub cluster_reasons: Vec<String>,
    pub rules: Vec<Rule>,
    /// One line each: kinds that could not be determined, kinds not in the table.
    pub warnings: Vec<String>,
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

/// Rules for recording Events. controller-runtime writes core/v1 Events (the reconciler's
/// recorder and leader election); newer releases write events.k8s.io/v1 Events.
pub fn event_rules() -> Vec<Rule> {
    vec![
        Rule::new(
            "",
            ["events"],
            &["create", "patch"],
            "Events on custom resources and on leader election (create; patch to count repeats).",
        ),
        Rule::new(
            "events.k8s.io",
            ["events"],
            &["create", "patch"],
            "The same events, for operator releases that record through the events.k8s.io API.",
        ),
    ]
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
        cluster_scoped: false,
        cluster_reasons: Vec::new(),
        rules: custom_resource_rules(apis),
        warnings: Vec::new(),
    };
    plan.rules.push(Rule::new(
        "",
        ["secrets"],
        &["create", "delete", "get", "list", "update", "watch"],
        "Helm release storage: every revision of a release is a Secret that the helm-operator \
         creates, reads through a watch, updates and deletes.",
    ));
    plan.rules.extend(event_rules());
    plan.rules.extend(leader_election_rules());
    plan.rules.push(Rule::new(
        "",
        ["namespaces"],
        &["get"],
        "operator-sdk's helm-operator role grants get on namespaces so that the operator can \
         check that the namespace of a release exists.",
    ));

    let created = release_objects(scans, &mut plan);
    for (group, resources) in &created {
        let kinds: BTreeSet<&str> = resources
            .values()
            .flat_map(|r| r.kinds.iter().map(String::as_str))
            .collect();
        let cluster: Vec<&str> = resources
            .iter()
            .filter(|(_, r)| !r.namespaced)
            .map(|(plural, _)| plural.as_str())
            .collect();
        let mut comment = format!(
            "Objects the chart creates ({}): the helm-operator installs, upgrades and uninstalls \
             them, and watches them to revert drift.",
            kinds.into_iter().collect::<Vec<_>>().join(", ")
        );
        if !cluster.is_empty() {
            comment.push_str(&format!(
                "\nCluster-scoped: {}, so the role is a ClusterRole.",
                cluster.join(", ")
            ));
        }
        plan.rules.push(Rule::new(
            group,
            resources.keys().cloned(),
            RELEASE_VERBS,
            comment,
        ));
    }
    lookup_rules(scans, &created, &mut plan);
    privilege_rules(&created, &mut plan);
    plan
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

/// Records that the role must be a ClusterRole, and why.
fn add_reason(plan: &mut RbacPlan, reason: &str) {
    plan.cluster_scoped = true;
    if !plan.cluster_reasons.iter().any(|r| r == reason) {
        plan.cluster_reasons.push(reason.to_string());
    }
}

fn unresolved_warning(gap: &Unresolved) -> String {
    if gap.line == 0 {
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

fn release_objects(scans: &[&KindScan], plan: &mut RbacPlan) -> Created {
    let mut created: Created = BTreeMap::new();
    // (group, kind) -> places, so each unknown kind is one warning.
    let mut unknown: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    let mut no_group: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for scan in scans {
        for found in &scan.kinds {
            let place = format!("{}:{}", found.file, found.line);
            let Some(resource) = resolve(found.group(), &found.kind) else {
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
        for gap in &scan.unresolved {
            plan.warnings.push(unresolved_warning(gap));
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

/// `get` (or `list`) on what templates read with Helm's `lookup` and do not create: Helm fails
/// the install when such a read is forbidden.
fn lookup_rules(scans: &[&KindScan], created: &Created, plan: &mut RbacPlan) {
    // Group -> resource -> verbs.
    let mut reads: BTreeMap<String, BTreeMap<String, BTreeSet<&str>>> = BTreeMap::new();
    let mut kinds: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    // Group -> resources read at cluster scope.
    let mut cluster: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for scan in scans {
        for lookup in &scan.lookups {
            let Some(resource) = resolve(group_of(&lookup.api_version), &lookup.kind) else {
                continue;
            };
            if !resource.namespaced || lookup.all_namespaces {
                add_reason(plan, &format!("{} (read with lookup)", lookup.kind));
            }
            let already = created
                .get(&resource.group)
                .is_some_and(|r| r.contains_key(&resource.plural));
            if already {
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
            let verb = if lookup.lists { "list" } else { "get" };
            if !resource.namespaced || lookup.all_namespaces {
                cluster
                    .entry(resource.group.clone())
                    .or_default()
                    .insert(resource.plural.clone());
            }
            reads
                .entry(resource.group.clone())
                .or_default()
                .entry(resource.plural)
                .or_default()
                .insert(verb);
            kinds
                .entry(resource.group)
                .or_default()
                .insert(lookup.kind.clone());
        }
    }
    for (group, resources) in reads {
        // One rule per distinct verb set, so no resource gets a verb it does not need.
        let mut by_verbs: BTreeMap<Vec<&str>, Vec<String>> = BTreeMap::new();
        for (plural, verbs) in resources {
            by_verbs
                .entry(verbs.into_iter().collect())
                .or_default()
                .push(plural);
        }
        let names = kinds[&group].iter().cloned().collect::<Vec<_>>().join(", ");
        for (verbs, plurals) in by_verbs {
            let mut comment = format!(
                "The chart's templates read existing {names} with Helm's `lookup`; Helm fails \
                 the install when that read is forbidden."
            );
            let wide: Vec<&str> = plurals
                .iter()
                .filter(|p| cluster.get(&group).is_some_and(|c| c.contains(*p)))
                .map(String::as_str)
                .collect();
            if !wide.is_empty() {
                comment.push_str(&format!(
                    "\nCluster-scoped: {}, so the role is a ClusterRole.",
                    wide.join(", ")
                ));
            }
            plan.rules.push(Rule::new(&group, plurals, &verbs, comment));
        }
    }
}

/// `escalate` and `bind` when the chart creates RBAC objects: the API server refuses to let
/// anyone create a Role or ClusterRole granting permissions they do not hold themselves
/// unless they have `escalate` on it, and refuses a binding to a role whose permissions they
/// do not hold unless they have `bind` on that role.
fn privilege_rules(created: &Created, plan: &mut RbacPlan) {
    let Some(rbac) = created.get("rbac.authorization.k8s.io") else {
        return;
    };
    let creates = |plural: &str| rbac.contains_key(plural);
    let mut escalate = Vec::new();
    if creates("roles") {
        escalate.push("roles");
    }
    if creates("clusterroles") {
        escalate.push("clusterroles");
    }
    let mut bind = BTreeSet::new();
    if creates("rolebindings") {
        // A RoleBinding may refer to a Role or a ClusterRole.
        bind.insert("roles");
        bind.insert("clusterroles");
    }
    if creates("clusterrolebindings") {
        bind.insert("clusterroles");
    }
    if !escalate.is_empty() {
        plan.rules.push(Rule::new(
            "rbac.authorization.k8s.io",
            escalate,
            &["escalate"],
            "The chart creates roles. The API server refuses to create a role that grants \
             permissions its creator does not hold, unless the creator has escalate on it; the \
             operator cannot hold every permission the chart's roles grant, so it needs escalate.",
        ));
    }
    if !bind.is_empty() {
        plan.rules.push(Rule::new(
            "rbac.authorization.k8s.io",
            bind,
            &["bind"],
            "The chart creates role bindings. The API server refuses to bind a role whose \
             permissions the creator does not hold, unless the creator has bind on that role.",
        ));
    }
}

#[cfg(test)]
mod tests;
