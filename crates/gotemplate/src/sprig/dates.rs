//! Sprig's date functions (Go's layouts).

use crate::funcs::Functions;

pub(super) fn register(_f: &mut Functions) {}
