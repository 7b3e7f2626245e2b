//! The templates under `templates/`, embedded at compile time so an installed binary works from
//! any directory. Files ending in `.tera` are rendered; every other file is copied as it is.

use std::sync::OnceLock;

use include_dir::{Dir, include_dir};
use thiserror::Error;

static TEMPLATES: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/templates");

#[derive(Debug, Error)]
pub enum TemplateError {
    #[error("template {0} failed to render: {1}")]
    Render(String, String),
    #[error("embedded file {0} is missing from this build of operator-rs")]
    Missing(String),
}

fn engine() -> &'static Result<tera::Tera, String> {
    static ENGINE: OnceLock<Result<tera::Tera, String>> = OnceLock::new();
    ENGINE.get_or_init(|| {
        let mut tera = tera::Tera::default();
        // Generated files are YAML, Rust and Markdown, never HTML.
        tera.autoescape_on(vec![]);
        let mut sources = Vec::new();
        collect(&TEMPLATES, &mut sources);
        tera.add_raw_templates(sources)
            .map_err(|e| format!("{e:?}"))?;
        Ok(tera)
    })
}

fn collect(dir: &'static Dir<'static>, out: &mut Vec<(String, String)>) {
    for file in dir.files() {
        let path = file.path().to_string_lossy().replace('\\', "/");
        if path.ends_with(".tera")
            && let Some(text) = file.contents_utf8()
        {
            out.push((path, text.to_string()));
        }
    }
    for sub in dir.dirs() {
        collect(sub, out);
    }
}

/// Renders `templates/<name>` (a path ending in `.tera`).
pub fn render(name: &str, context: &tera::Context) -> Result<String, TemplateError> {
    let tera = engine()
        .as_ref()
        .map_err(|e| TemplateError::Render(name.to_string(), e.clone()))?;
    tera.render(name, context).map_err(|e| {
        let mut message = e.to_string();
        let mut source = std::error::Error::source(&e);
        while let Some(cause) = source {
            message.push_str(&format!(": {cause}"));
            source = cause.source();
        }
        TemplateError::Render(name.to_string(), message)
    })
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
