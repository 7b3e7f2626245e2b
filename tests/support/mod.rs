//! Shared harnesses for the end-to-end tests. Each test binary uses only some of them.
#![allow(dead_code)]

pub mod project;
pub mod registry;
pub mod tools;
