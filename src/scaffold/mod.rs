//! Generating files: the embedded templates, the plan of files to write, and writing that plan
//! so that nothing is ever left half-written.

pub mod common;
pub mod helm;
pub mod plan;
pub mod templates;
pub mod write;

pub use plan::FilePlan;
