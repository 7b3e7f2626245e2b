//! The templates under `templates/`, embedded at compile time so an installed binary works from
//! any directory. Files ending in `.tera` are rendered; every other file is copied as it is.

use std::sync::{Mutex, OnceLock};

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

/// The parsed templates, added on first use: parsing every embedded template at start-up was a
/// large share of `new`'s time, and one command renders the templates of one project type only.
fn engine() -> &'static Mutex<tera::Tera> {
    static ENGINE: OnceLock<Mutex<tera::Tera>> = OnceLock::new();
    ENGINE.get_or_init(|| {
        let mut tera = tera::Tera::default();
        tera.autoescape_on(vec![]);
        Mutex::new(tera)
    })
}

/// Adds `name` and the templates it includes (`{% include "..." %}`) to `tera`, once.
fn load(tera: &mut tera::Tera, name: &str) -> Result<(), TemplateError> {
    if tera.get_template_names().any(|loaded| loaded == name) {
        return Ok(());
    }
    let text = TEMPLATES
        .get_file(name)
        .and_then(|file| file.contents_utf8())
        .ok_or_else(|| TemplateError::Missing(name.to_string()))?;
    tera.add_raw_template(name, text)
        .map_err(|e| TemplateError::Render(name.to_string(), format!("{e:?}")))?;
    for included in includes(text) {
        load(tera, included)?;
    }
    Ok(())
}

/// The names a template includes.
fn includes(text: &str) -> impl Iterator<Item = &str> {
    text.split("{%").skip(1).filter_map(|tag| {
        let tag = tag.trim_start_matches('-').trim_start();
        let rest = tag.strip_prefix("include")?.trim_start();
        let rest = rest.strip_prefix('"')?;
        rest.split('"').next()
    })
}

/// Starts parsing `names` (with what they include) on a thread of its own, for a command that
/// has other work to do before it renders them: parsing is a good part of rendering, and the
/// second core is otherwise idle while a command reads its inputs. A render that comes first
/// waits for the parse or does it itself; a template that fails to parse is reported by the
/// render that needs it.
pub fn preload(names: &'static [&'static str]) {
    std::thread::spawn(move || {
        let mut tera = engine()
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        for name in names {
            let _ = load(&mut tera, name);
        }
    });
}

pub fn render(name: &str, context: &tera::Context) -> Result<String, TemplateError> {
    // A poisoned lock only means another render panicked; the parsed templates are intact.
    let mut tera = engine()
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    load(&mut tera, name)?;
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

#[cfg(test)]
mod parse_tests {
    use super::*;

    /// Templates are parsed on first use, so this test is what still finds a broken one early.
    #[test]
    fn every_embedded_template_parses_with_its_includes() {
        fn names(dir: &'static Dir<'static>, out: &mut Vec<String>) {
            for file in dir.files() {
                let path = file.path().to_string_lossy().replace('\\', "/");
                if path.ends_with(".tera") {
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
        let mut tera = tera::Tera::default();
        for name in &all {
            load(&mut tera, name).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        assert_eq!(
            includes(r#"a {% include "x/y.tera" %} b {%- include "z.tera" -%}"#)
                .collect::<Vec<_>>(),
            ["x/y.tera", "z.tera"]
        );
    }
}
