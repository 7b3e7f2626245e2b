//! The Helm operator runtime's foundations, compatible with the operator-framework
//! helm-operator: watches.yaml, and Helm's release storage in Secrets.

pub mod expand_env;
pub mod label_selector;
pub mod release_store;
pub mod stored_release;
pub mod watches;
