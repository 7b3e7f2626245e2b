//! `operator-rs generate bundle`: deploy/ as one install.yaml (and crds.yaml) for people who
//! install the operator with kubectl.

use super::cluster::{check_namespace, choose_namespace};
use crate::cli::GenerateBundleArgs;
use crate::error::usage;
use crate::kube::ConnectOptions;
use crate::manifests;
use crate::project;
use crate::ship::{self, bundle, output};
use crate::ui::Ui;

pub fn run(ui: &Ui, args: &GenerateBundleArgs) -> anyhow::Result<()> {
    if let Some(namespace) = &args.namespace {
        check_namespace(namespace)?;
    }
    let (root, project) = project::load_current().map_err(usage)?;
    let output_dir = args.output.clone().unwrap_or_else(|| root.join("dist"));
    output::check_dir(&output_dir).map_err(ship_error)?;
    let deploy = manifests::load(&root, &project, false)?;
    let image = if deploy.needs_image() {
        Some(
            ship::choose_image(args.image.as_deref(), project.image.as_deref())
                .map_err(ship_error)?,
        )
    } else {
        if args.image.is_some() {
            ui.warn(format!(
                "--image is not used: no file under {}/ holds the {} placeholder, so images are written as they are",
                manifests::DEPLOY_DIR,
                manifests::IMAGE_PLACEHOLDER
            ));
        }
        None
    };
    // As deploy chooses, with the kubeconfig read only for its context's namespace: a
    // missing or unreadable kubeconfig is no reason to refuse an offline bundle.
    let context = crate::kube::context_namespace(&ConnectOptions::default())
        .ok()
        .flatten();
    let namespace = choose_namespace(args.namespace.as_deref(), &project, context.as_deref());
    check_namespace(&namespace)?;

    let files = bundle::assemble(
        &project,
        &deploy,
        image.as_ref(),
        &namespace,
        args.crds_separately,
    )
    .map_err(ship_error)?;
    output::write_files(&output_dir, &files.files()).map_err(ship_error)?;
    for (name, _) in files.files() {
        ui.info(format!("  wrote {}", output_dir.join(name).display()));
    }
    ui.info(format!(
        "Install it with `kubectl apply --server-side -f {}`{}.",
        output_dir.join(bundle::INSTALL_FILE).display(),
        if args.crds_separately {
            format!(
                " after `kubectl apply --server-side -f {}`",
                output_dir.join(bundle::CRDS_FILE).display()
            )
        } else {
            String::new()
        }
    ));
    Ok(())
}

/// A shipping error as the exit code should see it: the user's to fix (2) or a failure (1).
pub fn ship_error(error: ship::ShipError) -> anyhow::Error {
    match error {
        ship::ShipError::Manifests(manifests::ManifestError::NoImage { .. }) => usage(error),
        e if e.is_usage() => usage(e),
        e => e.into(),
    }
}
