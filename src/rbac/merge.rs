//! Merging rule sets, for `create api` adding a chart or a kind to an existing role.

use super::Rule;

/// Union of two rule sets: the existing rules first, in their order (exact duplicates among
/// them dropped), then each added rule that grants something new, narrowed to the resources
/// the rules before it do not already cover. Merging the same rules twice changes nothing.
pub fn merge(existing: &[Rule], added: &[Rule]) -> Vec<Rule> {
    let mut out: Vec<Rule> = Vec::with_capacity(existing.len() + added.len());
    for rule in existing {
        if !out.iter().any(|r| same_grant(r, rule)) {
            out.push(rule.clone());
        }
    }
    for rule in added {
        let uncovered: Vec<String> = rule
            .resources
            .iter()
            .filter(|resource| !covered(&out, rule, resource))
            .cloned()
            .collect();
        if uncovered.is_empty() {
            continue;
        }
        out.push(Rule {
            resources: uncovered,
            ..rule.clone()
        });
    }
    out
}

/// Every group and verb of `rule` on `resource` is already granted by `rules`.
fn covered(rules: &[Rule], rule: &Rule, resource: &str) -> bool {
    rule.api_groups.iter().all(|group| {
        rule.verbs
            .iter()
            .all(|verb| rules.iter().any(|r| r.allows(group, resource, verb)))
    })
}

/// The same grant, whatever the order of the lists and the comment.
fn same_grant(a: &Rule, b: &Rule) -> bool {
    let sorted = |list: &[String]| {
        let mut list = list.to_vec();
        list.sort();
        list.dedup();
        list
    };
    sorted(&a.api_groups) == sorted(&b.api_groups)
        && sorted(&a.resources) == sorted(&b.resources)
        && sorted(&a.verbs) == sorted(&b.verbs)
}
