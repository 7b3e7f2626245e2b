//! The templates under `templates/`, embedded at compile time so an installed binary works from
//! any directory. Files ending in `.jinja` are rendered (Jinja syntax, by minijinja); every
//! other file is copied as it is.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use include_dir::{Dir, include_dir};
use minijinja::value::{Serde, Value};
use thiserror::Error;

static TEMPLATES: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/templates");

#[derive(Debug, Error)]
pub enum TemplateError {
    #[error("template {0} failed to render: {1}")]
    Render(String, String),
    #[error("embedded file {0} is missing from this build of operator-rs")]
    Missing(String),
}

/// The values a template is rendered with, by name.
#[derive(Debug, Clone, Default)]
pub struct Context(BTreeMap<String, Value>);

impl Context {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn insert<T: serde::Serialize + ?Sized>(&mut self, key: impl Into<String>, value: &T) {
        self.0.insert(key.into(), Value::from(Serde(value)));
    }

    fn to_value(&self) -> Value {
        Value::from_pairs(self.0.iter().map(|(k, v)| (k.as_str(), v.clone())))
    }
}

/// The engine, which parses each template the first time it is rendered (a parse is cheap:
/// all of a Helm project's templates, 16 KB, take well under a millisecond).
fn engine() -> &'static minijinja::Environment<'static> {
    static ENGINE: OnceLock<minijinja::Environment<'static>> = OnceLock::new();
    ENGINE.get_or_init(|| {
        let mut engine = minijinja::Environment::new();
        // Generated files are not HTML; a template's last newline is the file's.
        engine.set_auto_escape_callback(|_| minijinja::AutoEscape::None);
        let mut syntax = minijinja::syntax::SyntaxConfig::builder();
        syntax.keep_trailing_newline(true);
        engine.set_syntax(syntax.build().expect("the default delimiters are valid"));
        // Printing or looping over a name the context lacks is a bug in operator-rs, so it
        // fails the render; `{% if name %}` on a missing name is false.
        engine.set_undefined_behavior(minijinja::UndefinedBehavior::SemiStrict);
        engine.set_loader(|name| {
            Ok(TEMPLATES
                .get_file(name)
                .and_then(|file| file.contents_utf8())
                .map(str::to_string))
        });
        engine
    })
}

pub fn render(name: &str, context: &Context) -> Result<String, TemplateError> {
    let failed = |e: minijinja::Error| {
        let mut message = e.to_string();
        let mut source = std::error::Error::source(&e);
        while let Some(cause) = source {
            message.push_str(&format!(": {cause}"));
            source = cause.source();
        }
        TemplateError::Render(name.to_string(), message)
    };
    let template = engine().get_template(name).map_err(|e| match e.kind() {
        minijinja::ErrorKind::TemplateNotFound => TemplateError::Missing(name.to_string()),
        _ => failed(e),
    })?;
    template.render(context.to_value()).map_err(failed)
}

/// The bytes of an embedded file that is not a template.
pub fn raw(name: &str) -> Result<&'static [u8], TemplateError> {
    TEMPLATES
        .get_file(name)
        .map(|f| f.contents())
        .ok_or_else(|| TemplateError::Missing(name.to_string()))
}

/// Every embedded file under `dir`, relative to it: path -> bytes.
pub fn raw_tree(dir: &str) -> Result<std::collections::BTreeMap<String, Vec<u8>>, TemplateError> {
    let root = TEMPLATES
        .get_dir(dir)
        .ok_or_else(|| TemplateError::Missing(dir.to_string()))?;
    let mut files = std::collections::BTreeMap::new();
    fn walk(
        d: &'static Dir<'static>,
        root: &str,
        out: &mut std::collections::BTreeMap<String, Vec<u8>>,
    ) {
        for file in d.files() {
            let path = file.path().to_string_lossy().replace('\\', "/");
            let relative = path
                .strip_prefix(root)
                .unwrap_or(&path)
                .trim_start_matches('/');
            out.insert(relative.to_string(), file.contents().to_vec());
        }
        for sub in d.dirs() {
            walk(sub, root, out);
        }
    }
    walk(root, dir, &mut files);
    Ok(files)
}

#[cfg(test)]
mod parse_tests {
    use super::*;

    /// Templates are parsed on first use, so this test is what still finds a broken one early.
    /// An included template is one of them; its name is resolved when a render reaches the
    /// `include`, and the scaffold tests render every project file.
    #[test]
    fn every_embedded_template_parses() {
        fn names(dir: &'static Dir<'static>, out: &mut Vec<String>) {
            for file in dir.files() {
                let path = file.path().to_string_lossy().replace('\\', "/");
                if path.ends_with(".jinja") {
                    out.push(path);
                }
            }
            for sub in dir.dirs() {
                names(sub, out);
            }
        }
        let mut all = Vec::new();
        names(&TEMPLATES, &mut all);
        assert!(all.len() > 10, "{all:?}");
        for name in &all {
            engine()
                .get_template(name)
                .unwrap_or_else(|e| panic!("{name}: {e:#}"));
        }
    }

    #[test]
    fn renders_as_the_scaffolds_need() {
        let mut context = Context::new();
        context.insert("items", &["a", "b"]);
        let source = "{% for i in items %}{{ i }}{% if not loop.last %},{% endif %}{% endfor %}\n{%- if absent %}never{% endif %}\n";
        let rendered = engine().render_str(source, context.to_value()).unwrap();
        assert_eq!(
            rendered, "a,b\n",
            "an absent name is false in `if`, the last newline is kept"
        );
        assert!(
            engine()
                .render_str("{{ absent }}", Value::from(()))
                .is_err()
        );
        let missing = render("common/no-such.jinja", &context).unwrap_err();
        assert!(matches!(missing, TemplateError::Missing(_)), "{missing}");
    }
}
