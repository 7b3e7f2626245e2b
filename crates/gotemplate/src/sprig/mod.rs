//! The Sprig functions that Helm ships, with Sprig's semantics (Masterminds/sprig v3).

use crate::funcs::Functions;

pub(crate) fn register(_f: &mut Functions) {}
