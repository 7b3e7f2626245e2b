//! Go's `text/template`, with the Sprig functions Helm ships, exact to Go's output and messages.
//!
//! No Kubernetes and no Helm objects live here: Helm's semantics (values, `.Files`,
//! `.Capabilities`, `include`, `tpl`, `toYaml`, `lookup`...) are built on this crate by the tool,
//! through [`Functions`] (closures receiving a [`Context`]) and [`Object`] (host structs).
//!
//! # Use
//!
//! ```
//! use gotemplate::{Functions, Map, MissingKey, Templates, Value};
//!
//! let mut set = Templates::new(Functions::sprig());
//! set.set_missing_key(MissingKey::Zero);
//! set.parse("a.yaml", r#"{{ define "name" }}{{ .name | upper }}{{ end }}name: {{ template "name" . }}"#)
//!     .unwrap();
//! let data: Map = [("name".to_string(), Value::from("web"))].into_iter().collect();
//! assert_eq!(set.execute("a.yaml", &Value::Map(data)).unwrap(), "name: WEB");
//! ```
//!
//! # The API, in short
//!
//! - [`Value`]: nil, bool, int (i64), float (f64), string, `[]byte`, list, map, host object.
//!   A [`Map`] is shared and mutable like a Go map (`set`, `unset`, `merge` change it where
//!   every holder sees it); [`Value::from_json`] makes every number a float64, as YAML/JSON values are in Helm;
//!   template literals are ints. `{}` (Display) prints like Go's `fmt.Print`.
//!   [`Map::named`] gives a map a Go named type (Helm 4's `.Values` is `common.Values`: `typeOf`
//!   shows it and Sprig's `dig` refuses it, as in Helm).
//! - [`Templates`]: a set of associated templates. [`Templates::parse`] adds a named text and
//!   its `define`s/`block`s; [`Templates::execute`] runs one by name;
//!   [`Templates::set_missing_key`] is Go's `missingkey` option; [`Templates::set_name`] is the
//!   set's own name (Helm's is "gotpl"; Go's "no template ... associated with template" names it);
//!   clone it for `tpl`.
//! - [`Functions`]: the function map. [`Functions::sprig`] has Go's built-ins and Sprig
//!   (without `env`/`expandenv`, as Helm). [`Function::new`] declares a function with Go
//!   parameter [`Type`]s, so arguments are checked and reported as Go does
//!   (`wrong type for value; expected string; got int`).
//! - [`Context`]: what a function receives: [`Context::execute_template`] (for `include`),
//!   [`Context::execute_text`] (for `tpl`), [`Context::host`] (per-execution host state given to
//!   [`Templates::execute_with_host`], e.g. Helm's include counter), [`Context::depth`].
//! - [`Substitution`]: asks of [`Templates::execute_watching`] whether the execution would
//!   have gone the same way had one string in its data been another (so that a host need not
//!   render twice); functions declare their [`Effects`] for it ([`Function::with_effects`]).
//! - [`Error`]: the whole Go message (`template: NAME:LINE:COL: executing "NAME" at <.x>: ...`),
//!   with a [`ErrorKind`]; a function returns [`Error::func`] and the executor adds
//!   `error calling NAME: `. [`ErrorKind::Limit`] errors pass through functions unchanged.
//! - [`Limits`]: template nesting depth, output size, input size. The parser has fixed bounds
//!   besides: Go's 10000 nested parentheses (`max expression depth exceeded`) and 10000 nested
//!   blocks. `Value` implements `Drop` (values nested 100000 deep drop without recursion), so a
//!   match takes an owned value's contents by reference (`Value::Map(ref m)`), not by move.
//!
//! Sprig's crypto is there: `genPrivateKey` (rsa, dsa, ecdsa, ed25519, in Sprig's PEM block
//! types), `genCA`, `genSelfSignedCert`, `genSignedCert` and their `WithKey` forms (the
//! certificate laid out as Go's `x509.CreateCertificate` writes it, as a `sprig.certificate`
//! with `.Cert` and `.Key`), `buildCustomCert`, `derivePassword`, `bcrypt`, `htpasswd` (Sprig
//! v3.3's two arguments), `encryptAES`/`decryptAES` (Sprig's exact scheme).
//!
//! Not there yet: dates know UTC only. Keys the certificate functions take may be RSA, ECDSA
//! P-256 or P-384, or Ed25519 (Go also reads P-224 and P-521 keys, and EC keys without their
//! public point); a DSA key is refused with Go's messages, as Go refuses it.
//! `derivePassword`'s counter is an `int` here, a `uint32` in Go: a negative or too large
//! counter is an error either way, but Go also refuses an `int` variable there.
//!
//! Go's `<no value>`: an action printing a missing value (or a nil one: Go prints both alike)
//! writes `<no value>`; Helm removes that text from each rendered file afterwards, which is
//! the tool's business, not the engine's.

mod builtins;
mod error;
mod exec;
mod funcs;
pub mod gofmt;
mod lex;
mod parse;
pub mod sprig;
mod substitution;
mod template;
mod value;

pub use error::{Error, ErrorKind};
pub use funcs::{Context, Effects, FuncBody, Function, Functions, Type};
pub use substitution::Substitution;
pub use template::{Limits, MissingKey, Parsed, Templates};
pub use value::{Map, Object, Value};

/// Parses `text` as a template named `name` with the Sprig functions and executes it on
/// `data` (Helm's missing-key behaviour): for quick use and tests.
pub fn render(name: &str, text: &str, data: &Value) -> Result<String, Error> {
    let mut set = Templates::new(Functions::sprig());
    set.set_missing_key(MissingKey::Zero);
    set.parse(name, text)?;
    set.execute(name, data)
}
