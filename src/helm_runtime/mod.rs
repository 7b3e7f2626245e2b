//! The Helm operator runtime's foundations, compatible with the operator-framework
//! helm-operator: watches.yaml, Helm's release storage in Secrets, and the release manager that
//! installs, upgrades, reconciles and uninstalls one release (its hooks and objects apart).

pub mod expand_env;
pub mod hooks;
pub mod label_selector;
pub mod release_manager;
pub mod release_objects;
pub mod release_store;
pub mod stored_release;
pub mod watches;
