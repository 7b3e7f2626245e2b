//! Faults a test injects to see an operator cope: Lease writes of one holder that fail or
//! hang, so that a leader-election test can cut one replica off while the other renews.
//!
//! A write (PUT, PATCH, DELETE) of the Lease is the holder's when its `fieldManager` is the
//! holder's identity or ends with `-<identity>` (kube-lease-manager's
//! `kube-lease-manager-<identity>`), or when it sets `spec.holderIdentity` to the identity.
//! Reads still work: a partitioned replica that only reads learns nothing it could act on.

use serde_json::Value;

use super::resources::ResourceType;

/// What a refused Lease write gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeaseFault {
    /// 500 InternalError at once.
    Fail,
    /// No answer until the fault is lifted (then 500, reason Timeout) or the server stops, as
    /// behind a network partition; a client without a read timeout waits for good.
    Hang,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeasePartition {
    pub namespace: String,
    pub lease: String,
    pub holder: String,
    pub fault: LeaseFault,
}

/// The fault that applies to this request, if any.
pub fn lease_fault(
    partitions: &[LeasePartition],
    t: &ResourceType,
    namespace: Option<&str>,
    name: Option<&str>,
    verb: &str,
    field_manager: Option<&str>,
    body: &[u8],
) -> Option<LeasePartition> {
    if !t.is("coordination.k8s.io", "leases") || !matches!(verb, "update" | "patch" | "delete") {
        return None;
    }
    let holder_in_body = || {
        serde_json::from_slice::<Value>(body).ok().and_then(|b| {
            b.pointer("/spec/holderIdentity")?
                .as_str()
                .map(String::from)
        })
    };
    partitions
        .iter()
        .find(|p| {
            Some(p.namespace.as_str()) == namespace
                && Some(p.lease.as_str()) == name
                && (field_manager
                    .is_some_and(|m| m == p.holder || m.ends_with(&format!("-{}", p.holder)))
                    || holder_in_body().as_deref() == Some(p.holder.as_str()))
        })
        .cloned()
}
