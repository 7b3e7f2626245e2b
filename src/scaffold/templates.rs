//! The templates under `templates/`, embedded at compile time so an installed binary works from
//! any directory. Files ending in `.tera` are rendered by Tera; every other file is copied as it
//! is.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use include_dir::{Dir, include_dir};
use thiserror::Error;

static TEMPLATES: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/templates");

/// The ending that makes an embedded file a template.
const TEMPLATE_SUFFIX: &str = ".tera";

#[derive(Debug, Error)]
pub enum TemplateError {
    #[error("template {0} failed to render: {1}")]
    Render(String, String),
    #[error("embedded file {0} is missing from this build of operator-rs")]
    Missing(String),
    #[error("the embedded templates under {0}/ of this build of operator-rs do not parse: {1}")]
    Parse(String, String),
}

/// The values a template is rendered with, by name.
#[derive(Debug, Clone, Default)]
pub struct Context {
    values: tera::Context,
    /// The first value that could not become a template value, with why; rendering reports it.
    unrepresentable: Option<(String, String)>,
}

impl Context {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn insert<T: serde::Serialize + ?Sized>(&mut self, key: impl Into<String>, value: &T) {
        let key = key.into();
        match tera::Value::try_from_serializable(value) {
            Ok(value) => self.values.insert_value(key, value),
            Err(e) => {
                self.unrepresentable.get_or_insert((key, e.to_string()));
            }
        }
    }
}

/// The engine of one folder under `templates/` (`common`, `helm`, `rust`), holding all of that
/// folder's templates, parsed the first time one of them is rendered: a Helm project never
/// parses the Rust project's templates (96 of the 113 KB). A template can therefore include
/// only templates of its own folder.
fn engine(folder: &str) -> Result<&'static tera::Tera, TemplateError> {
    type Slot = OnceLock<Result<tera::Tera, String>>;
    static ENGINES: OnceLock<BTreeMap<&'static str, Slot>> = OnceLock::new();
    let engines = ENGINES.get_or_init(|| {
        TEMPLATES
            .dirs()
            .filter_map(|dir| dir.path().to_str())
            .map(|name| (name, Slot::new()))
            .collect()
    });
    let slot = engines
        .get(folder)
        .ok_or_else(|| TemplateError::Missing(format!("{folder}/")))?;
    slot.get_or_init(|| parse_folder(folder))
        .as_ref()
        .map_err(|message| TemplateError::Parse(folder.to_string(), message.clone()))
}

fn parse_folder(folder: &str) -> Result<tera::Tera, String> {
    let mut engine = tera::Tera::new();
    // Generated files are not HTML: nothing is escaped.
    engine.autoescape_on(Vec::<&str>::new());
    let mut templates = Vec::new();
    if let Some(dir) = TEMPLATES.get_dir(folder) {
        collect_templates(dir, &mut templates)?;
    }
    engine
        .add_raw_templates(templates)
        .map_err(|e| error_chain(&e))?;
    Ok(engine)
}

/// Every template under `dir`, as (path under `templates/` with `/` separators, text).
fn collect_templates(
    dir: &'static Dir<'static>,
    out: &mut Vec<(String, &'static str)>,
) -> Result<(), String> {
    for file in dir.files() {
        let name = file.path().to_string_lossy().replace('\\', "/");
        if !name.ends_with(TEMPLATE_SUFFIX) {
            continue;
        }
        match file.contents_utf8() {
            Some(text) => out.push((name, text)),
            None => return Err(format!("{name} is not UTF-8")),
        }
    }
    for sub in dir.dirs() {
        collect_templates(sub, out)?;
    }
    Ok(())
}

fn error_chain(e: &tera::Error) -> String {
    let mut message = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        message.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    message
}

/// Renders the template `name` (its path under `templates/`). A name the context lacks fails
/// the render when it is printed or looped over, since that is a bug in operator-rs; in
/// `{% if name %}` it is false.
pub fn render(name: &str, context: &Context) -> Result<String, TemplateError> {
    if let Some((key, why)) = &context.unrepresentable {
        return Err(TemplateError::Render(
            name.to_string(),
            format!("the value of `{key}` cannot be used in a template: {why}"),
        ));
    }
    let folder = name.split('/').next().unwrap_or_default();
    engine(folder)?
        .render(name, &context.values)
        .map_err(|e| match e.kind() {
            tera::ErrorKind::TemplateNotFound(_) => TemplateError::Missing(name.to_string()),
            _ => TemplateError::Render(name.to_string(), error_chain(&e)),
        })
}

/// The bytes of an embedded file that is not a template.
pub fn raw(name: &str) -> Result<&'static [u8], TemplateError> {
    TEMPLATES
        .get_file(name)
        .map(|f| f.contents())
        .ok_or_else(|| TemplateError::Missing(name.to_string()))
}

/// The text of an embedded file that is not a template.
pub fn raw_text(name: &str) -> Result<&'static str, TemplateError> {
    std::str::from_utf8(raw(name)?)
        .map_err(|e| TemplateError::Render(name.to_string(), format!("it is not UTF-8 ({e})")))
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

    /// Each folder's templates are parsed the first time one of them is rendered, so this test
    /// is what finds a broken one early, an `include` of a template that is not there included.
    #[test]
    fn every_embedded_template_parses() {
        let mut parsed = 0;
        for dir in TEMPLATES.dirs() {
            let folder = dir.path().to_str().unwrap();
            let mut templates = Vec::new();
            collect_templates(dir, &mut templates).unwrap();
            let engine = engine(folder).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(engine.get_template_names().count(), templates.len());
            parsed += templates.len();
        }
        assert!(parsed > 10, "only {parsed} templates found");
    }

    #[test]
    fn renders_as_the_scaffolds_need() {
        let mut context = Context::new();
        context.insert("items", &["a", "b"]);
        let source = "{% for i in items %}{{ i }}{% if not loop.last %},{% endif %}{% endfor %}\n{%- if absent %}never{% endif %}\n";
        let mut engine = tera::Tera::new();
        engine.add_raw_template("t", source).unwrap();
        let rendered = engine.render("t", &context.values).unwrap();
        assert_eq!(
            rendered, "a,b\n",
            "an absent name is false in `if`, the last newline is kept"
        );
        engine.add_raw_template("u", "{{ absent }}").unwrap();
        assert!(engine.render("u", &context.values).is_err());
        let missing = render("common/no-such.tera", &context).unwrap_err();
        assert!(matches!(missing, TemplateError::Missing(_)), "{missing}");
        let no_folder = render("no-such/file.tera", &context).unwrap_err();
        assert!(
            matches!(no_folder, TemplateError::Missing(_)),
            "{no_folder}"
        );
    }

    #[test]
    fn templates_are_not_escaped() {
        let mut context = Context::new();
        context.insert("project_name", "<a&b>");
        context.insert("cluster_scoped", &false);
        let rendered = render("common/deploy/service_account.yaml.tera", &context).unwrap();
        assert!(rendered.contains("name: <a&b>\n"), "{rendered}");
    }

    #[test]
    fn a_value_that_cannot_be_a_template_value_fails_the_render() {
        struct Unserializable;
        impl serde::Serialize for Unserializable {
            fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
                Err(serde::ser::Error::custom("no"))
            }
        }
        let mut context = Context::new();
        context.insert("project_name", &Unserializable);
        let error = render("common/gitignore.tera", &context).unwrap_err();
        assert!(error.to_string().contains("`project_name`"), "{error}");
    }
}
