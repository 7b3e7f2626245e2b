//! Faults a test injects to see an operator cope: Lease writes of one holder that fail or
//! hang, so that a leader-election test can cut one replica off while the other renews;
//! error answers to chosen requests ([`RequestFault`]); and, in [`super::http`] and
//! [`super::KubeServer`], a cut of every connection for a while (the port closed, as when the
//! API server restarts or a partition drops packets to a closed port), a 404 whose reason is
//! not Kubernetes' own, and the expiry of every open watch.
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

/// An error answer for requests a test picks, instead of what the store would say: 429 with
/// `Retry-After`, 500, 503, a 400/403/422 that will not change. Only requests of resources
/// (not discovery) are matched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestFault {
    pub code: u16,
    /// The Status reason, which may be one Kubernetes does not define.
    pub reason: String,
    pub message: String,
    /// Seconds, sent as the `Retry-After` header (the API server sends it with 429 and 503).
    pub retry_after: Option<u64>,
    /// Only this verb (`get`, `list`, `watch`, `create`, `update`, `patch`, `delete`).
    pub verb: Option<String>,
    /// Only this resource (a plural).
    pub resource: Option<String>,
    /// Only requests naming this object.
    pub name: Option<String>,
    /// How many more requests get it; `None`: all, until lifted.
    pub remaining: Option<usize>,
    /// No answer until the fault is lifted (then the error), as a request stuck in a slow
    /// admission chain or behind a partition: a test kills a client in the middle of it.
    pub hang: bool,
}

impl RequestFault {
    pub fn new(code: u16, reason: &str, message: &str) -> RequestFault {
        RequestFault {
            code,
            reason: reason.into(),
            message: message.into(),
            retry_after: None,
            verb: None,
            resource: None,
            name: None,
            remaining: None,
            hang: false,
        }
    }

    pub fn hang(mut self) -> Self {
        self.hang = true;
        self
    }

    /// The same fault, however many uses it has left.
    pub fn same_as(&self, other: &RequestFault) -> bool {
        RequestFault {
            remaining: None,
            ..self.clone()
        } == RequestFault {
            remaining: None,
            ..other.clone()
        }
    }

    pub fn retry_after(mut self, seconds: u64) -> Self {
        self.retry_after = Some(seconds);
        self
    }

    pub fn verb(mut self, verb: &str) -> Self {
        self.verb = Some(verb.into());
        self
    }

    pub fn resource(mut self, plural: &str) -> Self {
        self.resource = Some(plural.into());
        self
    }

    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.into());
        self
    }

    pub fn times(mut self, count: usize) -> Self {
        self.remaining = Some(count);
        self
    }

    fn matches(&self, verb: &str, t: &ResourceType, name: Option<&str>) -> bool {
        self.remaining != Some(0)
            && self.verb.as_deref().is_none_or(|v| v == verb)
            && self.resource.as_deref().is_none_or(|r| r == t.plural)
            && self.name.as_deref().is_none_or(|n| Some(n) == name)
    }

    /// The answer's body: a Status as the API server writes one.
    pub fn status(&self) -> serde_json::Value {
        serde_json::json!({
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": self.message, "reason": self.reason, "code": self.code,
        })
    }
}

/// The first fault that applies to this request, counted down.
pub fn request_fault(
    faults: &mut [RequestFault],
    verb: &str,
    t: &ResourceType,
    name: Option<&str>,
) -> Option<RequestFault> {
    let fault = faults.iter_mut().find(|f| f.matches(verb, t, name))?;
    if let Some(remaining) = &mut fault.remaining {
        *remaining -= 1;
    }
    Some(fault.clone())
}
