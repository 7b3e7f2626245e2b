//! The function registry: Go's `template.FuncMap`, with each function's parameter types so that
//! arguments are checked and converted as Go's reflection does, with Go's messages.

use std::any::Any;
use std::collections::HashMap;
use std::sync::Arc;

use crate::error::Error;
use crate::value::Value;

/// A Go parameter type, for argument checking.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Type {
    /// `interface{}`: anything, nil included.
    Any,
    String,
    /// Go's `int` (and `int64`).
    Int,
    Float,
    Bool,
    /// `[]interface{}`.
    List,
    /// `map[string]interface{}`.
    Map,
    /// A host struct of this Go type name (an [`crate::Object`] whose `type_name` it is), e.g.
    /// Sprig's `sprig.certificate`.
    Named(&'static str),
}

impl Type {
    pub fn go_name(self) -> &'static str {
        match self {
            Type::Any => "interface {}",
            Type::String => "string",
            Type::Int => "int",
            Type::Float => "float64",
            Type::Bool => "bool",
            Type::List => "[]interface {}",
            Type::Map => "map[string]interface {}",
            Type::Named(name) => name,
        }
    }

    pub(crate) fn can_be_nil(self) -> bool {
        matches!(self, Type::Any | Type::List | Type::Map)
    }

    /// Whether a value of this Go type is accepted as is.
    pub(crate) fn accepts(self, v: &Value) -> bool {
        matches!(
            (self, v),
            (Type::Any, _)
                | (Type::String, Value::String(_))
                | (Type::Int, Value::Int(_))
                | (Type::Float, Value::Float(_))
                | (Type::Bool, Value::Bool(_))
                | (Type::List, Value::List(_))
                | (Type::Map, Value::Map(_))
        ) || matches!((self, v), (Type::Named(name), Value::Object(o)) if o.type_name() == name)
    }
}

/// The body of a function: receives the execution context and the checked arguments.
pub type FuncBody = dyn Fn(&mut Context<'_, '_>, &[Value]) -> Result<Value, Error> + Send + Sync;

/// What a function does besides computing its result, as a [`crate::Substitution`] check
/// needs to know.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Effects {
    /// Not declared: it may change its arguments, read state or be random.
    #[default]
    Unknown,
    /// Its result depends on its arguments' contents and nothing else; it changes nothing.
    Pure,
    /// Pure, and it looks only at its direct arguments and at the shape of lists and maps
    /// (kind, emptiness, keys): strings inside them it moves into its result unread (`dict`,
    /// `default`, `first`).
    ShapeOnly,
    /// It changes a map it is given (`set`, `merge`), moving strings into it unread.
    Changes,
    /// It executes templates (`include`, `tpl`): that execution is watched on its own, but its
    /// direct string arguments pick what runs.
    Executes,
}

/// A template function with its Go signature.
#[derive(Clone)]
pub struct Function {
    pub(crate) body: Arc<FuncBody>,
    pub(crate) params: Vec<Type>,
    pub(crate) variadic: Option<Type>,
    pub(crate) effects: Effects,
}

impl Function {
    /// A function of fixed parameters.
    pub fn new(
        params: &[Type],
        body: impl Fn(&mut Context<'_, '_>, &[Value]) -> Result<Value, Error> + Send + Sync + 'static,
    ) -> Function {
        Function {
            body: Arc::new(body),
            params: params.to_vec(),
            variadic: None,
            effects: Effects::Unknown,
        }
    }

    /// A variadic function: `params` fixed, then any number of `rest`.
    pub fn variadic(
        params: &[Type],
        rest: Type,
        body: impl Fn(&mut Context<'_, '_>, &[Value]) -> Result<Value, Error> + Send + Sync + 'static,
    ) -> Function {
        Function {
            body: Arc::new(body),
            params: params.to_vec(),
            variadic: Some(rest),
            effects: Effects::Unknown,
        }
    }

    /// The function, declared to have `effects`.
    pub fn with_effects(mut self, effects: Effects) -> Function {
        self.effects = effects;
        self
    }

    /// The type of argument `i`.
    pub(crate) fn param(&self, i: usize) -> Type {
        self.params
            .get(i)
            .copied()
            .or(self.variadic)
            .unwrap_or(Type::Any)
    }
}

/// Functions by name (Go's `FuncMap`). Go's built-ins (`and`, `len`, `printf`...) are always
/// there; a function added here with a built-in's name replaces it, as in Go.
#[derive(Clone, Default)]
pub struct Functions {
    /// Hashed with foldhash rather than SipHash: a name is looked up at every call of a
    /// function in a template (and at parse, to check it exists), and the keys are the names
    /// the program registers, not text from a template.
    pub(crate) map: HashMap<String, Function, foldhash::fast::RandomState>,
}

impl Functions {
    /// No functions but Go's built-ins.
    pub fn new() -> Functions {
        Functions::default()
    }

    /// Go's built-ins and the Sprig functions Helm ships (without `env` and `expandenv`).
    pub fn sprig() -> Functions {
        let mut f = Functions::new();
        crate::sprig::register(&mut f);
        f
    }

    pub fn insert(&mut self, name: &str, f: Function) {
        self.map.insert(name.to_string(), f);
    }

    pub fn remove(&mut self, name: &str) {
        self.map.remove(name);
    }

    pub fn get(&self, name: &str) -> Option<&Function> {
        self.map.get(name)
    }

    pub fn contains(&self, name: &str) -> bool {
        self.map.contains_key(name) || crate::builtins::is_builtin(name)
    }

    /// Declares what the function `name` does besides computing its result (see [`Effects`]).
    pub fn set_effects(&mut self, name: &str, effects: Effects) {
        if let Some(f) = self.map.get_mut(name) {
            f.effects = effects;
        }
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.map.keys().map(String::as_str)
    }
}

/// What a running function can do: execute templates of the set it runs in (`include`), parse
/// and execute new text with them (`tpl`), and reach the host's state for this execution.
pub struct Context<'c, 'h> {
    pub(crate) set: &'c crate::Templates,
    pub(crate) shared: &'c mut crate::exec::Shared<'h>,
    pub(crate) template_name: &'c str,
}

impl Context<'_, '_> {
    /// Executes the named template of the set with `data` as dot (Helm's `include`).
    pub fn execute_template(&mut self, name: &str, data: &Value) -> Result<String, Error> {
        crate::exec::execute_nested(self.set, self.shared, name, data)
    }

    /// Parses `text` as a template named `name` into a copy of the set and executes it with
    /// `data` (Helm's `tpl`): it sees the set's templates, and its own `define`s stay its own.
    pub fn execute_text(&mut self, name: &str, text: &str, data: &Value) -> Result<String, Error> {
        let mut set = self.set.clone();
        set.parse(name, text)?;
        crate::exec::execute_nested(&set, self.shared, name, data)
    }

    /// The set the function runs in.
    pub fn templates(&self) -> &crate::Templates {
        self.set
    }

    /// The name of the template being executed (Go's `Template.Name()`).
    pub fn template_name(&self) -> &str {
        self.template_name
    }

    /// The host's state given to [`crate::Templates::execute_with_host`], if it is a `T`.
    pub fn host<T: Any>(&mut self) -> Option<&mut T> {
        self.shared.host.as_deref_mut()?.downcast_mut::<T>()
    }

    /// How deep template and `include` calls are nested right now.
    pub fn depth(&self) -> usize {
        self.shared.depth
    }
}
