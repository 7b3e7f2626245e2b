//! Shared harnesses for the end-to-end tests. Each test binary uses only some of them.
#![allow(dead_code)]

pub mod build_projects;
pub mod certs;
pub mod chart_repo;
pub mod closed_port;
pub mod crds;
pub mod cut_proxy;
pub mod helm;
pub mod helm_oracle;
pub mod http_server;
pub mod images;
pub mod kube_server;
pub mod oci;
pub mod oci_push;
pub mod openapi;
pub mod operator;
pub mod project;
pub mod project_on_server;
pub mod registry;
pub mod terminal;
pub mod tls_proxy;
pub mod tools;
pub mod webhook_project;
pub mod webhook_server;
