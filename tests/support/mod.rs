//! Harnesses shared by the integration tests. Each test crate uses a part of them.
#![allow(dead_code)]

pub mod kube_server;
