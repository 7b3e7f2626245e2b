//! RBAC rules. (Placeholder until the rules generator lands.)

use crate::chart::kinds::KindScan;

#[derive(Clone)]
pub struct Rule {
    pub api_groups: Vec<String>,
    pub resources: Vec<String>,
    pub verbs: Vec<String>,
    pub comment: Option<String>,
}

pub struct RbacPlan {
    pub cluster_scoped: bool,
    pub rules: Vec<Rule>,
    pub warnings: Vec<String>,
}

pub struct OwnedApi {
    pub group: String,
    pub plural: String,
}

pub fn helm_operator_rules(_scans: &[&KindScan], apis: &[OwnedApi]) -> RbacPlan {
    RbacPlan {
        cluster_scoped: false,
        rules: apis
            .iter()
            .map(|a| Rule {
                api_groups: vec![a.group.clone()],
                resources: vec![a.plural.clone()],
                verbs: vec!["get".into()],
                comment: None,
            })
            .collect(),
        warnings: vec![],
    }
}

pub fn rules_yaml(rules: &[Rule]) -> String {
    let mut out = String::from("rules:\n");
    for r in rules {
        out.push_str(&format!(
            "  - apiGroups: [\"{}\"]\n    resources: [{}]\n    verbs: [{}]\n",
            r.api_groups.join("\", \""),
            r.resources.join(", "),
            r.verbs.join(", ")
        ));
    }
    out
}

pub fn merge(existing: &[Rule], added: &[Rule]) -> Vec<Rule> {
    let mut out = existing.to_vec();
    out.extend(added.iter().cloned());
    out
}
