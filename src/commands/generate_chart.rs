//! `operator-rs generate chart`: a Helm chart of the operator in dist/chart/, generated again
//! after the project changes without losing the user's edits.

use std::path::Path;

use super::generate_bundle::ship_error;
use crate::cli::GenerateChartArgs;
use crate::error::usage;
use crate::image::ImageRef;
use crate::manifests::{self, ManifestError};
use crate::project::{self, Project, ProjectType};
use crate::ship::chart::{self, state, values};
use crate::ship::{self, output};
use crate::ui::Ui;

pub fn run(ui: &Ui, args: &GenerateChartArgs) -> anyhow::Result<()> {
    let (root, project) = project::load_current().map_err(usage)?;
    let image =
        ship::choose_image(args.image.as_deref(), project.image.as_deref()).map_err(ship_error)?;
    let dir = args
        .output
        .clone()
        .unwrap_or_else(|| root.join("dist").join("chart"));
    output::check_dir(&dir).map_err(ship_error)?;
    // The samples only feed NOTES.txt: a project without them still gets its chart.
    let deploy = match manifests::load(&root, &project, true) {
        Err(ManifestError::Sample(..)) => manifests::load(&root, &project, false)?,
        other => other?,
    };
    let version = args
        .chart_version
        .clone()
        .unwrap_or_else(|| project_version(&root, &project, &image));
    let generated = chart::generate(&chart::Inputs {
        project: &project,
        bundle: &deploy,
        image: &image,
        chart_version: &version,
    })
    .map_err(ship_error)?;
    let plan = state::plan(&dir, &generated.files, args.force).map_err(ship_error)?;
    let applied = state::apply(&dir, &plan).map_err(ship_error)?;

    let shown = |path: &str| path != chart::STATE_FILE;
    for path in applied.created.iter().filter(|p| shown(p)) {
        ui.info(format!("  created   {path}"));
    }
    for path in applied.changed.iter().filter(|p| shown(p)) {
        ui.info(format!("  updated   {path}"));
    }
    for path in &plan.remove {
        ui.info(format!("  removed   {path} (the project no longer has it)"));
    }
    for path in &plan.kept {
        ui.info(format!("  kept      {path} (you edited it)"));
    }
    let touched = applied
        .created
        .iter()
        .chain(&applied.changed)
        .filter(|p| shown(p))
        .count()
        + plan.remove.len();
    if touched == 0 && plan.kept.is_empty() {
        ui.info("  every file of the chart was up to date");
    }
    for path in &plan.left {
        ui.warn(format!(
            "{path} is not generated any more, but you edited it, so it was left in {}: delete it if it is not needed",
            dir.display()
        ));
    }
    for path in &plan.kept {
        let lacks = kept_lacks(&dir, path, &generated.values);
        if !lacks.is_empty() {
            ui.warn(format!(
                "{path} was kept as you edited it and lacks {}: add them (see values.schema.json and README.md), or run again with --force to overwrite it",
                lacks
            ));
        }
    }
    if let Some(warning) = old_operator(&root, &project, &generated) {
        ui.warn(warning);
    }
    ui.info(format!(
        "The chart of {} is in {}; install it with `helm install {} {}`.",
        project.project_name,
        dir.display(),
        project.project_name,
        dir.display()
    ));
    Ok(())
}

/// A warning when the chart passes the operator webhook flags its src/main.rs predates: the
/// release's names of what its own certificates are for (`--webhook-service-name` and the
/// others), without which it would exit at start-up.
fn old_operator(root: &Path, project: &Project, generated: &chart::Chart) -> Option<String> {
    let main = std::fs::read_to_string(root.join("src/main.rs")).ok()?;
    let passes_names = generated
        .values
        .iter()
        .any(|def| def.path == "webhook.certLifetime");
    (project.project_type == ProjectType::Rust
        && passes_names
        && !main.contains("webhook_service_name"))
    .then(|| {
        "src/main.rs has no --webhook-service-name (it was made before operator-rs passed a release's names to the operator), and the chart passes it and three more flags: add them as a new project's main.rs does (`operator-rs new` in another directory shows it), or the operator exits at start-up".to_string()
    })
}

/// What a kept file misses of this generation.
fn kept_lacks(dir: &Path, path: &str, defs: &[values::Definition]) -> String {
    let text = std::fs::read_to_string(dir.join(path)).unwrap_or_default();
    match path {
        "values.yaml" => values::missing(defs, &text).join(", "),
        "Chart.yaml" => String::from(
            "this generation's version and appVersion (set them in it to release a new image)",
        ),
        _ => String::new(),
    }
}

/// The chart's version when none is given: a Rust project's package version, else the image
/// tag when it is a semantic version, else 0.1.0.
fn project_version(root: &Path, project: &Project, image: &ImageRef) -> String {
    if project.project_type == ProjectType::Rust
        && let Ok(text) = std::fs::read_to_string(root.join("Cargo.toml"))
        && let Ok(manifest) = text.parse::<toml::Table>()
        && let Some(version) = manifest
            .get("package")
            .and_then(|p| p.get("version"))
            .and_then(|v| v.as_str())
        && semver::Version::parse(version).is_ok()
    {
        return version.to_string();
    }
    if let Some(tag) = image.tag() {
        let plain = tag.strip_prefix('v').unwrap_or(tag);
        if semver::Version::parse(plain).is_ok() {
            return plain.to_string();
        }
    }
    "0.1.0".to_string()
}
