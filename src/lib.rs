//! operator-rs: scaffold, build and deploy Kubernetes operators.
//!
//! Data flows one way: [`cli`] -> [`commands`] -> domain modules. Domain modules never print;
//! they return values and typed errors, and `commands` decides what the user sees.

pub mod cargo;
pub mod certs;
pub mod chart;
pub mod cli;
pub mod commands;
pub mod crdgen;
pub mod duration;
pub mod error;
pub mod fsutil;
pub mod helm_runtime;
pub mod image;
pub mod kube;
pub mod manifests;
pub mod names;
pub mod project;
pub mod rbac;
pub mod render;
pub mod scaffold;
pub mod schema;
pub mod ship;
pub mod supervise;
pub mod text;
pub mod ui;
pub mod webhooks;
pub mod yaml;
