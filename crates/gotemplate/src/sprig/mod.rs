//! The Sprig functions that Helm ships (Masterminds/sprig v3), with Sprig's semantics: its
//! lenient conversions (spf13/cast), its argument orders, and its panics turned into errors
//! with Go's runtime messages. Helm removes `env` and `expandenv`; so do we.

mod conv;
mod crypto;
mod dates;
pub use dates::{Civil, toml_time};
mod dicts;
mod encoding;
mod lists;
mod math;
mod paths;
mod reflection;
mod regex;
mod semver;
mod strings;

use crate::error::Error;
use crate::funcs::{Context, Effects, Function, Functions, Type};
use crate::value::Value;

pub use conv::{strval, to_f64, to_i64};
pub use encoding::to_json;

type Body = fn(&mut Context<'_, '_>, &[Value]) -> Result<Value, Error>;

/// Adds `name` with fixed parameters.
pub(crate) fn fixed(f: &mut Functions, name: &str, params: &[Type], body: Body) {
    f.insert(name, Function::new(params, body));
}

/// Adds `name` with fixed parameters and a variadic tail.
pub(crate) fn var(f: &mut Functions, name: &str, params: &[Type], rest: Type, body: Body) {
    f.insert(name, Function::variadic(params, rest, body));
}

/// A Go runtime panic inside a function, as the template engine reports it.
pub(crate) fn panic_err(msg: impl Into<String>) -> Error {
    Error::func(msg)
}

pub(crate) fn register(f: &mut Functions) {
    strings::register(f);
    lists::register(f);
    dicts::register(f);
    math::register(f);
    encoding::register(f);
    reflection::register(f);
    paths::register(f);
    regex::register(f);
    semver::register(f);
    dates::register(f);
    crypto::register(f);
    declare_effects(f);
}

/// Sprig's functions that read the clock, draw random numbers or ask the network.
const UNKNOWN_EFFECTS: &[&str] = &[
    "now",
    "ago",
    "durationRound",
    "randInt",
    "randAlphaNum",
    "randAlpha",
    "randNumeric",
    "randAscii",
    "randBytes",
    "shuffle",
    "uuidv4",
    "genPrivateKey",
    "genCA",
    "genCAWithKey",
    "genSelfSignedCert",
    "genSelfSignedCertWithKey",
    "genSignedCert",
    "genSignedCertWithKey",
    "bcrypt",
    "htpasswd",
    "encryptAES",
    "getHostByName",
    "fail",
];

/// Those that change the map they are given.
const CHANGES: &[&str] = &[
    "set",
    "unset",
    "merge",
    "mustMerge",
    "mergeOverwrite",
    "mustMergeOverwrite",
];

/// Those that look only at the shape of lists and maps and move their contents unread.
const SHAPE_ONLY: &[&str] = &[
    "dict",
    "list",
    "tuple",
    "get",
    "hasKey",
    "pluck",
    "pick",
    "omit",
    "dig",
    "values",
    "default",
    "empty",
    "coalesce",
    "all",
    "any",
    "ternary",
    "typeOf",
    "typeIs",
    "typeIsLike",
    "kindOf",
    "kindIs",
    "first",
    "mustFirst",
    "last",
    "mustLast",
    "rest",
    "mustRest",
    "initial",
    "mustInitial",
    "append",
    "push",
    "mustAppend",
    "mustPush",
    "prepend",
    "mustPrepend",
    "concat",
    "compact",
    "mustCompact",
    "reverse",
    "mustReverse",
    "deepCopy",
    "mustDeepCopy",
    "chunk",
    "mustChunk",
    "slice",
    "mustSlice",
];

/// Every other Sprig function computes its result from its arguments alone.
fn declare_effects(f: &mut Functions) {
    let names: Vec<String> = f.names().map(str::to_string).collect();
    for name in names {
        let effects = if UNKNOWN_EFFECTS.contains(&name.as_str()) {
            Effects::Unknown
        } else if CHANGES.contains(&name.as_str()) {
            Effects::Changes
        } else if SHAPE_ONLY.contains(&name.as_str()) {
            Effects::ShapeOnly
        } else {
            Effects::Pure
        };
        f.set_effects(&name, effects);
    }
}
