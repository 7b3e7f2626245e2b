//! The APIs and webhooks a Rust project's `PROJECT` lists, as the scaffold takes them: shared by
//! `create api` and `create webhook`, which both regenerate the registries from them.

use crate::error::usage;
use crate::names::{Group, Kind, Version};
use crate::project::Project;
use crate::scaffold::rust::RustApi;
use crate::scaffold::rust::webhooks::KindWebhooks;

/// Every API of the project, in the order they were added.
pub fn existing_apis(project: &Project) -> anyhow::Result<Vec<RustApi>> {
    project
        .resources
        .iter()
        .map(|r| {
            Ok(RustApi {
                group: Group::parse(&r.group)?,
                version: Version::parse(&r.version)?,
                kind: Kind::parse(&r.kind)?,
                plural: r.plural.clone(),
            })
        })
        .collect::<Result<_, crate::names::NameError>>()
        .map_err(|e| anyhow::anyhow!("PROJECT lists an invalid API: {e}"))
}

/// The versions of `kind` in the project, in the order they were added.
pub fn kind_versions(project: &Project, kind: &Kind) -> anyhow::Result<Vec<RustApi>> {
    let mut versions = Vec::new();
    for resource in project.resources.iter().filter(|r| r.kind == kind.as_str()) {
        if versions
            .first()
            .is_some_and(|first: &RustApi| first.group.as_str() != resource.group)
        {
            continue;
        }
        versions.push(RustApi {
            group: Group::parse(&resource.group)?,
            version: Version::parse(&resource.version)?,
            kind: kind.clone(),
            plural: resource.plural.clone(),
        });
    }
    if versions.is_empty() {
        let mut kinds: Vec<&str> = project.resources.iter().map(|r| r.kind.as_str()).collect();
        kinds.dedup();
        return Err(usage(format!(
            "--kind={kind}: the project has no kind {kind} (it has {}); add it first with `operator-rs create api --kind={kind}`",
            if kinds.is_empty() {
                "none".to_string()
            } else {
                kinds.join(", ")
            }
        )));
    }
    Ok(versions)
}

/// Every kind's webhooks, as the registry needs them.
pub fn all_webhooks(project: &Project) -> anyhow::Result<Vec<KindWebhooks>> {
    project
        .webhooks
        .iter()
        .map(|w| {
            let kind = Kind::parse(&w.kind)?;
            let versions = kind_versions(project, &kind)?;
            let version = Version::parse(&w.version)?;
            let api = RustApi {
                version: version.clone(),
                ..versions[0].clone()
            };
            Ok(KindWebhooks {
                api,
                defaulting: w.defaulting,
                validation: w.validation,
                conversion: w.conversion,
                spokes: versions
                    .into_iter()
                    .map(|a| a.version)
                    .filter(|v| *v != version)
                    .collect(),
            })
        })
        .collect()
}
