//! Child objects: the owner reference that ties them to their custom resource, and the apply that
//! refuses to take over one another controller owns.

use std::fmt::Debug;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use kube::api::{Api, Patch, PatchParams};
use kube::{Resource, ResourceExt};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::Error;
use crate::context::MANAGER;

/// The controller reference to `owner` that a child carries: Kubernetes deletes the child with
/// its owner, and the controller reconciles the owner when the child changes. It blocks the
/// owner's foreground deletion until the child is gone, as controller-runtime's does (kube's
/// `controller_owner_ref` leaves that out); `deploy/role.yaml` grants `update` on the owner's
/// `finalizers` for it.
pub fn owner_reference<K: Resource<DynamicType = ()>>(owner: &K) -> Option<OwnerReference> {
    let mut reference = owner.controller_owner_ref(&())?;
    reference.block_owner_deletion = Some(true);
    Some(reference)
}

/// Applies `desired` (named `name`) by server-side apply, forcing the fields it sets, unless an
/// object of that name is controlled by another owner than `owner_uid`: taking it over would
/// fight that controller (and the API server refuses a second controller reference anyway). An
/// object without a controller is adopted. Returns the object as the API server stored it.
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
    let existing = api.get_opt(name).await.map_err(|source| Error::Api {
        action: "read",
        object: object(),
        source,
    })?;
    let foreign = existing.as_ref().and_then(|e| {
        e.owner_references()
            .iter()
            .find(|o| o.controller == Some(true) && Some(o.uid.as_str()) != owner_uid)
    });
    if let Some(owner) = foreign {
        return Err(Error::OwnedElsewhere {
            kind: C::kind(&()).to_string(),
            name: name.to_string(),
            owner: format!("{}/{}", owner.kind, owner.name),
        });
    }
    let params = PatchParams::apply(MANAGER).force();
    api.patch(name, &params, &Patch::Apply(desired))
        .await
        .map_err(|source| Error::Api {
            action: "apply",
            object: object(),
            source,
        })
}
