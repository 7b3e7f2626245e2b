//! `operator-rs build IMAGE`: build the project's image, optionally push it, and record it in
//! PROJECT for `deploy`. Nothing under `deploy/` is touched.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use indicatif::ProgressBar;

use crate::cli::BuildArgs;
use crate::error::usage;
use crate::image::base_image::{self, LocalBase};
use crate::image::runtime_binary::{self, Arch};
use crate::image::{BuildRequest, Builder, ImageRef, Stream, labels, local, steps};
use crate::project::{self, HelmRuntime, Project, ProjectError, ProjectType};
use crate::ui::Ui;

/// How wide the step text in the spinner may get before it is shortened.
const STEP_WIDTH: usize = 70;

pub fn run(ui: &Ui, args: BuildArgs) -> anyhow::Result<()> {
    // Everything the user typed is checked before any program runs.
    let image = ImageRef::parse(&args.image).map_err(usage)?;
    if let Some(digest) = image.digest() {
        return Err(usage(format!(
            "image \"{}\" names a digest (@{digest}), which identifies an image that already exists; build gives the new image a tag instead, for example {}:v0.1.0",
            args.image,
            image.repository()
        )));
    }
    let defaulted_tag = image.tag().is_none();
    let image = image.with_default_tag();
    let version = image.tag().unwrap_or(crate::image::DEFAULT_TAG).to_string();

    let (root, mut project) = project::load_current().map_err(|e| match e {
        ProjectError::NotFound(_) => usage(e),
        other => other.into(),
    })?;
    if args.local && project.project_type != ProjectType::Rust {
        return Err(usage(format!(
            "--local builds a Rust operator's binary with cargo on this machine, but {} is a {} project: its image only packages charts, so build it without --local",
            project.project_name,
            project.project_type.as_str()
        )));
    }
    if args.local && args.platform.is_some() {
        return Err(usage(
            "--local builds the binary for this machine with cargo, so it cannot target --platform; drop one of the two",
        ));
    }
    if let Some(platform) = &args.platform
        && project.project_type == ProjectType::Rust
        && args.file.is_none()
        && !matches!(
            platform.as_str(),
            "linux/amd64" | "linux/arm64" | "linux/arm64/v8"
        )
    {
        return Err(usage(format!(
            "--platform {platform}: the Rust operator's build/Dockerfile cross-compiles for linux/amd64 and linux/arm64; pick one of them"
        )));
    }
    let dockerfile = match &args.file {
        Some(file) => std::env::current_dir()
            .context("cannot read the current directory")?
            .join(file),
        None => root.join("build").join("Dockerfile"),
    };
    if !dockerfile.is_file() {
        return Err(usage(format!(
            "the Dockerfile {} does not exist: point --file at one, or restore build/Dockerfile (`operator-rs new` generates it)",
            dockerfile.display()
        )));
    }
    if project.project_type == ProjectType::Helm {
        check_dockerfile_runtime(&dockerfile, &project)?;
    }
    let mut base = base_to_use(&args, &project)?;
    let created =
        labels::build_time(std::env::var("SOURCE_DATE_EPOCH").ok().as_deref()).map_err(usage)?;

    if defaulted_tag {
        ui.info(format!("note: no tag given, building {image}"));
    }
    let builder = Builder::locate(args.builder)?;
    builder.check_ready()?;

    let source = labels::git_source(&root);
    let mut all_labels: Vec<(String, String)> = labels::oci_labels(&labels::LabelInputs {
        project_name: &project.project_name,
        source: source.as_deref(),
        version: &version,
        created_unix: created,
    })
    .into_iter()
    .filter(|(key, _)| !args.labels.iter().any(|(k, _)| k == key))
    .collect();
    all_labels.extend(args.labels.iter().cloned());

    let build_phase = format!("{} build {image}", builder.kind());
    let mut output = if args.local {
        Output::new(ui, "cargo build --release", false)?
    } else {
        Output::new(ui, &build_phase, true)?
    };
    // The base image first, made from the binary that will run in it.
    let mut build_args: Vec<(String, String)> = args
        .build_args
        .iter()
        .filter(|(key, _)| key != base_image::RUNTIME_BASE_ARG)
        .cloned()
        .collect();
    if let Some(base) = &mut base {
        if let Base::Local { binary, image, .. } = base {
            let local = LocalBase::prepare(binary).with_context(|| {
                format!("cannot prepare the base image of {}", binary.display())
            })?;
            let local_image = ImageRef::parse(&local.image).map_err(|e| anyhow::anyhow!(e))?;
            let runtime_base = args
                .build_args
                .iter()
                .find(|(key, _)| key == base_image::RUNTIME_BASE_ARG)
                .map_or(base_image::RUNTIME_BASE_DEFAULT, |(_, value)| {
                    value.as_str()
                });
            let base_args = [(base_image::BUILD_ARG.to_string(), runtime_base.to_string())];
            let base_labels = labels::oci_labels(&labels::LabelInputs {
                project_name: "operator-rs",
                source: None,
                version: env!("CARGO_PKG_VERSION"),
                created_unix: created,
            });
            let base_phase = format!("{} build {}", builder.kind(), local.image);
            output.phase(&base_phase, true);
            builder
                .build(
                    &BuildRequest {
                        context: local.context(),
                        dockerfile: &local.dockerfile(),
                        image: &local_image,
                        build_args: &base_args,
                        labels: &base_labels,
                        platform: args.platform.as_deref(),
                        no_cache: args.no_cache,
                        buildkit: std::fs::read_to_string(local.dockerfile())
                            .is_ok_and(|text| crate::image::needs_buildkit(&text)),
                    },
                    &mut |s, l| output.line(s, l),
                )
                .map_err(|e| output.fail(e))?;
            build_args.push((base_image::BUILD_ARG.to_string(), local.image.clone()));
            *image = Some(local.image.clone());
        } else if let Base::Published { image, .. } = base {
            build_args.push((base_image::BUILD_ARG.to_string(), image.clone()));
        }
    }
    let local_context = if args.local {
        let binaries =
            local::cargo_build(&root, &mut |s, l| output.line(s, l)).map_err(|e| output.fail(e))?;
        Some(local::prepare(&dockerfile, &binaries).map_err(|e| output.fail(e))?)
    } else {
        None
    };
    let (context, dockerfile) = match &local_context {
        Some(local) => (local.path().to_path_buf(), local.dockerfile()),
        None => (root.clone(), dockerfile),
    };

    let buildkit = std::fs::read_to_string(&dockerfile)
        .map(|text| crate::image::needs_buildkit(&text))
        .unwrap_or(false);
    let request = BuildRequest {
        context: &context,
        dockerfile: &dockerfile,
        image: &image,
        build_args: &build_args,
        labels: &all_labels,
        platform: args.platform.as_deref(),
        no_cache: args.no_cache,
        buildkit,
    };
    output.phase(&build_phase, true);
    builder
        .build(&request, &mut |s, l| output.line(s, l))
        .map_err(|e| output.fail(e))?;
    if args.push {
        output.phase(&format!("{} push {image}", builder.kind()), false);
        builder
            .push(&image, &mut |s, l| output.line(s, l))
            .map_err(|e| output.fail(e))?;
    }
    output.finish();
    drop(local_context);

    if let Some(base) = &base {
        ui.info(base.describe());
    }
    ui.info(format!("Built {image} with {}", builder.kind()));
    if args.push {
        ui.info(format!("Pushed {image}"));
    }
    project.image = Some(image.to_string());
    project.save(&root)?;
    ui.info(format!(
        "Recorded {image} in {}: `operator-rs deploy` will use it",
        root.join(project::PROJECT_FILE).display()
    ));
    if !args.push {
        ui.info(format!(
            "The cluster pulls it from its registry: push it with `operator-rs build {image} --push`"
        ));
    }
    Ok(())
}

/// A Helm project's Dockerfile must build on the image of the runtime PROJECT names: one left
/// from the other runtime (PROJECT edited, the Dockerfile not) would still build, into an
/// image that runs another operator than PROJECT says, or none. A Dockerfile that names
/// neither runtime's image is the user's own and is left to them.
fn check_dockerfile_runtime(dockerfile: &std::path::Path, project: &Project) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(dockerfile)
        .with_context(|| format!("cannot read {}", dockerfile.display()))?;
    let wanted = project.helm_runtime();
    let Some((made_for, base)) = crate::scaffold::helm::dockerfile_runtime(&text) else {
        return Ok(());
    };
    if made_for == wanted {
        return Ok(());
    }
    let recorded = match project.runtime {
        Some(_) => format!("PROJECT says `runtime: {}`", wanted.as_str()),
        None => "PROJECT names no runtime, which means `runtime: helm-operator`".to_string(),
    };
    Err(usage(format!(
        "{} builds on {base}, the {} runtime's image, but {recorded}, so the image would not run what PROJECT names: replace the Dockerfile with the one `operator-rs new --type=helm --runtime={}` writes (the README's \"Switching runtimes\" says how), or put `runtime: {}` in PROJECT",
        dockerfile.display(),
        made_for.as_str(),
        wanted.as_str(),
        made_for.as_str(),
    )))
}

/// The base image a `runtime: operator-rs` project's image builds FROM.
enum Base {
    /// Made here from an operator-rs binary that can run in the image; `image` is its name
    /// once made.
    Local {
        binary: PathBuf,
        what: &'static str,
        image: Option<String>,
    },
    /// The published image of this version, because no binary here can run in the image.
    Published { image: String, why: String },
    /// Named by the user with `--build-arg BASE_IMAGE=...`.
    Given(String),
}

impl Base {
    /// Which base the build used, and why, for the user.
    fn describe(&self) -> String {
        match self {
            Base::Local {
                binary,
                what,
                image,
            } => format!(
                "Base image: {}, made here from {what} ({}), so the operator runs exactly it",
                image.as_deref().unwrap_or("operator-rs's"),
                binary.display()
            ),
            Base::Published { image, why } => format!(
                "Base image: the published {image} (operator-rs {}), since {why}",
                env!("CARGO_PKG_VERSION")
            ),
            Base::Given(image) => format!("Base image: {image} (--build-arg BASE_IMAGE)"),
        }
    }
}

/// The base image of a Helm project with the operator-rs runtime: one the user names, else
/// one made here from the operator-rs binary when it can run in the image (Linux, the image's
/// architecture), else the published image of this version. `None` for other projects.
fn base_to_use(args: &BuildArgs, project: &Project) -> anyhow::Result<Option<Base>> {
    let Some(binary) = runtime_binary_to_package(args, project)? else {
        return Ok(None);
    };
    if let Some((_, given)) = args
        .build_args
        .iter()
        .find(|(key, _)| key == base_image::BUILD_ARG)
    {
        if args.runtime_binary.is_some() {
            return Err(usage(format!(
                "--runtime-binary makes a base image from that binary, but --build-arg BASE_IMAGE={given} names the base image already: drop one of the two"
            )));
        }
        return Ok(Some(Base::Given(given.clone())));
    }
    Ok(Some(binary))
}

/// The operator-rs binary a Helm project with the operator-rs runtime runs: `--runtime-binary`
/// (which must run in the image), else this operator-rs when it can run there, else the
/// published base image; `None` for projects whose image runs no operator-rs.
fn runtime_binary_to_package(args: &BuildArgs, project: &Project) -> anyhow::Result<Option<Base>> {
    let packages_runtime = project.project_type == ProjectType::Helm
        && project.helm_runtime() == HelmRuntime::OperatorRs;
    if !packages_runtime {
        if let Some(path) = &args.runtime_binary {
            return Err(usage(format!(
                "--runtime-binary {}: only a Helm project with `runtime: operator-rs` in PROJECT packages an operator-rs binary, and {} is a {} project{}",
                path.display(),
                project.project_name,
                project.project_type.as_str(),
                if project.project_type == ProjectType::Helm {
                    " run by the helm-operator image"
                } else {
                    ""
                }
            )));
        }
        return Ok(None);
    }
    let arch = match &args.platform {
        Some(platform) => Arch::from_platform(platform).map_err(usage)?,
        None => match Arch::host() {
            Some(arch) => arch,
            None if args.runtime_binary.is_none() => {
                return Ok(Some(Base::Published {
                    image: base_image::published(),
                    why: format!(
                        "operator-rs makes no base image for this machine's architecture ({})",
                        std::env::consts::ARCH
                    ),
                }));
            }
            None => {
                return Err(usage(format!(
                    "this machine's architecture ({}) has no operator-rs runtime image: pass --platform linux/amd64 or linux/arm64 with the --runtime-binary for it",
                    std::env::consts::ARCH
                )));
            }
        },
    };
    if let Some(path) = &args.runtime_binary {
        let path = std::env::current_dir()
            .context("cannot read the current directory")?
            .join(path);
        // Every way a binary can fail the check is the user's to fix.
        runtime_binary::check(&path, "--runtime-binary", arch).map_err(usage)?;
        return Ok(Some(Base::Local {
            binary: path,
            what: "--runtime-binary",
            image: None,
        }));
    }
    let own = std::env::current_exe().map_err(|e| e.to_string());
    let checked = own.and_then(|path| {
        runtime_binary::check(&path, "this operator-rs", arch)
            .map(|()| path)
            .map_err(|e| e.to_string())
    });
    Ok(Some(match checked {
        Ok(binary) => Base::Local {
            binary,
            what: "this operator-rs",
            image: None,
        },
        // macOS, Windows, another architecture: the image of the same version instead.
        Err(why) => Base::Published {
            image: base_image::published(),
            why: why
                .split(". Pass --runtime-binary")
                .next()
                .unwrap_or(&why)
                .to_string(),
        },
    }))
}

/// Where the builder's output goes: on a terminal a spinner with the current step and a log
/// file kept only on failure; elsewhere the lines pass straight through to stderr.
struct Output<'a> {
    ui: &'a Ui,
    bar: ProgressBar,
    log: Option<(tempfile::NamedTempFile, PathBuf)>,
    phase: String,
    phase_has_steps: bool,
}

impl<'a> Output<'a> {
    fn new(ui: &'a Ui, first_phase: &str, has_steps: bool) -> anyhow::Result<Self> {
        let bar = ui.spinner(first_phase);
        let log = if bar.is_hidden() {
            None
        } else {
            let file = tempfile::Builder::new()
                .prefix("operator-rs-build-")
                .suffix(".log")
                .tempfile()
                .context("cannot create a temporary file for the build log")?;
            let path = file.path().to_path_buf();
            Some((file, path))
        };
        let mut output = Output {
            ui,
            bar,
            log,
            phase: String::new(),
            phase_has_steps: false,
        };
        output.phase(first_phase, has_steps);
        Ok(output)
    }

    /// Starts a phase; `has_steps` when its output announces Dockerfile steps.
    fn phase(&mut self, phase: &str, has_steps: bool) {
        self.phase = phase.to_string();
        self.phase_has_steps = has_steps;
        self.bar.set_message(phase.to_string());
        if let Some((file, _)) = &mut self.log {
            // The log is a convenience; a full disk must not fail the build.
            let _ = writeln!(file, "$ {phase}");
        }
    }

    fn line(&mut self, _stream: Stream, line: &str) {
        let Some((file, _)) = &mut self.log else {
            self.ui.passthrough(line);
            return;
        };
        let _ = writeln!(file, "{line}");
        // A build shows its step; cargo and push have no steps, so their latest line
        // ("Compiling kube v5", "Pushed") says how far they are.
        let progress = match steps::parse_step(line) {
            Some(step) => Some(step.to_string()),
            None if !self.phase_has_steps => Some(line.trim().to_string()),
            None => None,
        };
        if let Some(progress) = progress {
            self.bar.set_message(format!(
                "{}: {}",
                self.phase,
                steps::abbreviate(&progress, STEP_WIDTH)
            ));
        }
    }

    /// Turns a failure into the error to show, keeping the log file and naming it.
    fn fail<E>(&mut self, error: E) -> anyhow::Error
    where
        E: std::error::Error + Send + Sync + 'static,
    {
        self.bar.finish_and_clear();
        match self.log.take() {
            Some((file, path)) => match file.keep() {
                Ok(_) => anyhow::Error::new(error).context(format!(
                    "{} failed; the full log is in {}",
                    self.phase,
                    path.display()
                )),
                Err(_) => anyhow::Error::new(error).context(format!("{} failed", self.phase)),
            },
            None => anyhow::Error::new(error),
        }
    }

    fn finish(self) {
        self.bar.finish_and_clear();
    }
}
