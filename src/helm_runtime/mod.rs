//! The Helm operator runtime, compatible with the operator-framework helm-operator:
//! watches.yaml, Helm's release storage in Secrets, the release manager that installs,
//! upgrades, reconciles and uninstalls one release (its hooks and objects apart), and the
//! controller around it (values, status, drift watches, health probes, metrics).

pub mod controller;
pub mod dependents;
pub mod expand_env;
pub mod hooks;
pub mod http;
pub mod label_selector;
pub mod leader;
pub mod log;
pub mod metrics;
pub mod probes;
pub mod release_manager;
pub mod release_objects;
pub mod release_store;
pub mod status;
pub mod stored_release;
pub mod values;
pub mod watches;
