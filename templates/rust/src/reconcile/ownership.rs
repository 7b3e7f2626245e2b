//! Child objects: the owner reference that ties them to their custom resource, and an apply
//! that refuses to take over one another controller owns.

use std::fmt::Debug;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use kube::api::{Api, Patch, PatchParams};
use kube::{Resource, ResourceExt};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::Error;
use crate::context::MANAGER;

/// The controller reference a child carries: it goes with its owner, and a change to it
/// reconciles the owner. It blocks the owner's foreground deletion until the child is gone, as
/// controller-runtime's does (kube leaves that out); for it `deploy/role.yaml` grants `update`
/// on the owner's `finalizers`.
pub fn owner_reference<K: Resource<DynamicType = ()>>(owner: &K) -> Option<OwnerReference> {
    let reference = owner.controller_owner_ref(&())?;
    Some(OwnerReference {
        block_owner_deletion: Some(true),
        ..reference
    })
}

/// Server-side applies `desired`, forcing the fields it sets, unless an object of its `name`
/// is controlled by another owner than `owner_uid`: taking it over would fight that controller.
/// An object without a controller is adopted. Returns the object as the API server stored it.
pub async fn apply_owned<C>(
    api: &Api<C>,
    name: &str,
    desired: &C,
    owner_uid: Option<&str>,
) -> Result<C, Error>
where
    C: Resource<DynamicType = ()> + Clone + DeserializeOwned + Serialize + Debug,
{
    let object = || format!("the {} {name}", C::kind(&()));
    let existing = api.get_opt(name).await;
    let existing = existing.map_err(|source| Error::Api {
        action: "read",
        object: object(),
        source,
    })?;
    let owners = existing
        .as_ref()
        .map(|e| e.owner_references())
        .unwrap_or_default();
    if let Some(owner) = owners
        .iter()
        .find(|o| o.controller == Some(true) && Some(o.uid.as_str()) != owner_uid)
    {
        let (kind, name) = (C::kind(&()).to_string(), name.to_string());
        return Err(Error::OwnedElsewhere {
            kind,
            name,
            owner: format!("{}/{}", owner.kind, owner.name),
        });
    }
    let applied = api
        .patch(
            name,
            &PatchParams::apply(MANAGER).force(),
            &Patch::Apply(desired),
        )
        .await;
    applied.map_err(|source| Error::Api {
        action: "apply",
        object: object(),
        source,
    })
}
