//! Which kinds a chart's templates create. (Placeholder until the scanner lands.)

use super::Chart;

pub struct KindRef {
    pub api_version: String,
    pub kind: String,
    pub file: String,
    pub line: usize,
}

pub struct Unresolved {
    pub file: String,
    pub line: usize,
    pub text: String,
}

#[derive(Default)]
pub struct KindScan {
    pub kinds: Vec<KindRef>,
    pub unresolved: Vec<Unresolved>,
}

pub fn scan(_chart: &Chart) -> KindScan {
    KindScan::default()
}
