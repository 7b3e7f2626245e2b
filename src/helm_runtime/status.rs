//! A custom resource's `status` as the helm-operator (operator-sdk v1.42) writes it:
//! `conditions` (Initialized, Deployed, ReleaseFailed, Irreconcilable, each with a reason and
//! message) and `deployedRelease` (`name`, `manifest`), so that tools and users reading the Go
//! operator's status read ours unchanged.

use k8s_openapi::jiff::Timestamp;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub const INITIALIZED: &str = "Initialized";
pub const DEPLOYED: &str = "Deployed";
pub const RELEASE_FAILED: &str = "ReleaseFailed";
pub const IRRECONCILABLE: &str = "Irreconcilable";

pub const INSTALL_SUCCESSFUL: &str = "InstallSuccessful";
pub const UPGRADE_SUCCESSFUL: &str = "UpgradeSuccessful";
pub const UNINSTALL_SUCCESSFUL: &str = "UninstallSuccessful";
pub const INSTALL_ERROR: &str = "InstallError";
pub const UPGRADE_ERROR: &str = "UpgradeError";
pub const RECONCILE_ERROR: &str = "ReconcileError";
pub const UNINSTALL_ERROR: &str = "UninstallError";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Condition {
    #[serde(rename = "type")]
    pub kind: String,
    /// "True", "False" or "Unknown".
    pub status: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_transition_time: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeployedRelease {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub manifest: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Status {
    // Go writes `conditions: null` for none; an empty list reads the same to every client.
    #[serde(default)]
    pub conditions: Vec<Condition>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deployed_release: Option<DeployedRelease>,
}

impl Status {
    /// The status of a custom resource; one that cannot be read starts afresh, as the Go
    /// operator's does.
    pub fn of(object: &Value) -> Status {
        object
            .get("status")
            .and_then(|s| serde_json::from_value(s.clone()).ok())
            .unwrap_or_default()
    }

    /// Sets a condition in place (or appends it). Its transition time changes only when its
    /// status does.
    pub fn set(&mut self, kind: &str, status: bool, reason: &str, message: &str) {
        let status = if status { "True" } else { "False" };
        let mut condition = Condition {
            kind: kind.to_string(),
            status: status.to_string(),
            reason: reason.to_string(),
            message: message.to_string(),
            last_transition_time: Some(now()),
        };
        if let Some(existing) = self.conditions.iter_mut().find(|c| c.kind == kind) {
            if existing.status == status {
                condition.last_transition_time = existing.last_transition_time.clone();
            }
            *existing = condition;
        } else {
            self.conditions.push(condition);
        }
    }

    pub fn remove(&mut self, kind: &str) {
        self.conditions.retain(|c| c.kind != kind);
    }

    pub fn condition(&self, kind: &str) -> Option<&Condition> {
        self.conditions.iter().find(|c| c.kind == kind)
    }

    pub fn to_value(&self) -> Value {
        // A struct of strings and lists always serialises.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// metav1.Time's format: RFC 3339 in UTC, whole seconds.
fn now() -> String {
    Timestamp::now().strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_condition_keeps_its_transition_time_while_its_status_holds() {
        let mut status = Status::of(&json!({"status": {"conditions": [
            {"type": "Deployed", "status": "True", "reason": "InstallSuccessful",
             "lastTransitionTime": "2020-01-01T00:00:00Z"}
        ]}}));
        status.set(DEPLOYED, true, UPGRADE_SUCCESSFUL, "notes");
        let deployed = status.condition(DEPLOYED).unwrap();
        assert_eq!(deployed.reason, UPGRADE_SUCCESSFUL);
        assert_eq!(
            deployed.last_transition_time.as_deref(),
            Some("2020-01-01T00:00:00Z")
        );
        status.set(DEPLOYED, false, UNINSTALL_SUCCESSFUL, "");
        assert_ne!(
            status
                .condition(DEPLOYED)
                .unwrap()
                .last_transition_time
                .as_deref(),
            Some("2020-01-01T00:00:00Z")
        );
        status.remove(DEPLOYED);
        assert!(status.conditions.is_empty());
    }

    #[test]
    fn writes_the_helm_operators_field_names() {
        let mut status = Status::default();
        status.set(INITIALIZED, true, "", "");
        status.deployed_release = Some(DeployedRelease {
            name: "web".into(),
            manifest: "---".into(),
        });
        let value = status.to_value();
        assert_eq!(value["conditions"][0]["type"], "Initialized");
        assert!(value["conditions"][0].get("reason").is_none());
        assert_eq!(
            value["deployedRelease"],
            json!({"name": "web", "manifest": "---"})
        );
    }
}
