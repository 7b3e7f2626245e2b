//! A set of associated templates (Go's `*template.Template` and its namespace).

use std::any::Any;
use std::collections::HashMap;
use std::sync::Arc;

use crate::error::Error;
use crate::funcs::Functions;
use crate::parse::{Tree, parse};
use crate::value::Value;

/// What a missing map key evaluates to (Go's `Option("missingkey=...")`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MissingKey {
    /// `missingkey=default` (or `invalid`): no value; printed as `<no value>`.
    #[default]
    Default,
    /// `missingkey=zero`: the map's zero value, a nil `interface{}` (Helm's choice). A nil
    /// `interface{}` prints as `<no value>` too; fields of it are an error.
    Zero,
    /// `missingkey=error`: `map has no entry for key "x"`.
    Error,
}

/// Bounds against hostile templates. Reaching one is an [`crate::ErrorKind::Limit`] error.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Nesting of `template` calls and [`crate::Context::execute_template`] (Go: 100000).
    pub max_depth: usize,
    /// Bytes one execution may write.
    pub max_output: usize,
    /// Bytes of one parsed text.
    pub max_input: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_depth: 10_000,
            max_output: 256 << 20,
            max_input: 64 << 20,
        }
    }
}

/// The templates of one parsed text (its top-level template and its `define`s), shared by
/// every set it is added to.
#[derive(Clone)]
pub struct Parsed(Arc<Vec<Arc<Tree>>>);

impl std::fmt::Debug for Parsed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|t| &t.name))
            .finish()
    }
}

/// A set of templates sharing functions and options; `define` and `block` add to it.
/// Cloning is cheap (parsed trees are shared) and makes an independent set, like Go's `Clone`.
#[derive(Clone)]
pub struct Templates {
    /// The set's own name (Go's root template name, "gotpl" in Helm), used in messages.
    pub(crate) name: String,
    pub(crate) trees: HashMap<String, Arc<Tree>>,
    pub(crate) funcs: Arc<Functions>,
    pub(crate) missing_key: MissingKey,
    pub(crate) limits: Limits,
}

impl Templates {
    pub fn new(funcs: Functions) -> Templates {
        Templates::with_functions(Arc::new(funcs))
    }

    /// A set with shared functions (build them once, use them for many sets).
    pub fn with_functions(funcs: Arc<Functions>) -> Templates {
        Templates {
            name: String::new(),
            trees: HashMap::new(),
            funcs,
            missing_key: MissingKey::Default,
            limits: Limits::default(),
        }
    }

    /// Names the set (Go's `template.New(name)`): messages about templates missing from the
    /// set name it, as Go does (Helm's set is "gotpl").
    pub fn set_name(&mut self, name: &str) -> &mut Templates {
        self.name = name.to_string();
        self
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn set_missing_key(&mut self, m: MissingKey) -> &mut Templates {
        self.missing_key = m;
        self
    }

    pub fn missing_key(&self) -> MissingKey {
        self.missing_key
    }

    pub fn set_limits(&mut self, limits: Limits) -> &mut Templates {
        self.limits = limits;
        self
    }

    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Replaces the functions (Go's `Funcs`): templates parsed before keep working as long as
    /// the names they use still exist.
    pub fn set_functions(&mut self, funcs: Arc<Functions>) -> &mut Templates {
        self.funcs = funcs;
        self
    }

    pub fn functions(&self) -> &Arc<Functions> {
        &self.funcs
    }

    /// Parses `text` as the template `name`; its `define`s and `block`s join the set. As in Go,
    /// a definition replaces an earlier one, and a text of only spaces and comments does not
    /// replace a template that has content.
    pub fn parse(&mut self, name: &str, text: &str) -> Result<&mut Templates, Error> {
        let parsed = self.parse_text(name, text)?;
        Ok(self.add_parsed(&parsed))
    }

    /// Parses `text` as the template `name` without adding it to the set: the result can be
    /// added to this set, or to any set with functions of the same names, with
    /// [`Templates::add_parsed`], as often as needed. (Helm parses a chart's templates anew
    /// for every render; a program that renders one chart many times need not.)
    pub fn parse_text(&self, name: &str, text: &str) -> Result<Parsed, Error> {
        self.parse_shared(name, Arc::from(text))
    }

    /// Like [`Templates::parse_text`], for a text the caller already holds shared: the trees
    /// keep it as it is (their text nodes are parts of it) rather than a copy.
    pub fn parse_shared(&self, name: &str, text: Arc<str>) -> Result<Parsed, Error> {
        if text.len() > self.limits.max_input {
            return Err(Error::limit(format!(
                "template: {name}: text of {} bytes is over the limit of {} bytes",
                text.len(),
                self.limits.max_input
            )));
        }
        let has = |n: &str| self.funcs.contains(n);
        let trees = parse(name, text, &has)?;
        Ok(Parsed(Arc::new(trees.into_iter().map(Arc::new).collect())))
    }

    /// Adds the templates of a parsed text, as [`Templates::parse`] adds them.
    pub fn add_parsed(&mut self, parsed: &Parsed) -> &mut Templates {
        for tree in parsed.0.iter() {
            let empty = crate::exec::is_empty_tree(tree);
            match self.trees.get(&tree.name) {
                Some(old) if empty && !crate::exec::is_empty_tree(old) => {}
                _ => {
                    self.trees.insert(tree.name.clone(), tree.clone());
                }
            }
        }
        self
    }

    pub fn has(&self, name: &str) -> bool {
        self.trees.contains_key(name)
    }

    /// The names of the templates, sorted.
    pub fn names(&self) -> Vec<String> {
        let mut v: Vec<String> = self.trees.keys().cloned().collect();
        v.sort();
        v
    }

    /// Executes the template `name` with `data` as dot (Go's `ExecuteTemplate`).
    pub fn execute(&self, name: &str, data: &Value) -> Result<String, Error> {
        crate::exec::execute_root(self, name, data, None, None)
    }

    /// Like [`Templates::execute`], with host state that functions reach through
    /// [`crate::Context::host`] (for example Helm's count of nested `include`s).
    pub fn execute_with_host(
        &self,
        name: &str,
        data: &Value,
        host: &mut dyn Any,
    ) -> Result<String, Error> {
        crate::exec::execute_root(self, name, data, Some(host), None)
    }

    /// Like [`Templates::execute_with_host`], and says in `watch` whether the execution would
    /// have gone the same way with the substitution made in its data (see
    /// [`crate::Substitution`]); a watch once broken stays so over several executions.
    pub fn execute_watching(
        &self,
        name: &str,
        data: &Value,
        host: Option<&mut dyn Any>,
        watch: &mut crate::Substitution,
    ) -> Result<String, Error> {
        crate::exec::execute_root(self, name, data, host, Some(watch))
    }
}

impl std::fmt::Debug for Templates {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Templates")
            .field("templates", &self.names())
            .field("missing_key", &self.missing_key)
            .finish()
    }
}
