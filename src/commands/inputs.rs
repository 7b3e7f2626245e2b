//! Turning flags (or answers at a prompt) into validated names. Shared by `new` and
//! `create api`, so the rules and the messages are the same everywhere.

use crate::error::{UsageError, usage};
use crate::names::{self, Group, Kind, ProjectName, Version};
use crate::ui::Ui;

/// The names of one API: group, version, kind and plural.
#[derive(Debug, Clone)]
pub struct ApiNames {
    pub group: Group,
    pub version: Version,
    pub kind: Kind,
    pub plural: String,
}

/// A value from its flag, else from a prompt (on a terminal) or the default.
/// `flag` names the option in the error when there is neither.
fn value_or_ask<T: 'static>(
    ui: &Ui,
    given: Option<&str>,
    prompt: &str,
    default: Option<String>,
    flag: &str,
    parse: fn(&str) -> Result<T, names::NameError>,
) -> anyhow::Result<T> {
    if let Some(value) = given {
        return parse(value).map_err(usage);
    }
    let answer = ui.ask(prompt, default, move |value| {
        parse(value).map(|_| ()).map_err(|e| e.to_string())
    })?;
    match answer {
        Some(value) => parse(&value).map_err(usage),
        None => Err(UsageError::new(format!(
            "{flag} is required: pass it, or run on a terminal to be asked"
        ))
        .into()),
    }
}

/// The Kind: `--kind`, else asked with `default` (for Helm, the chart name in CamelCase).
pub fn kind(ui: &Ui, given: Option<&str>, default: Option<Kind>) -> anyhow::Result<Kind> {
    value_or_ask(
        ui,
        given,
        "Kind (CamelCase)",
        default.map(|k| k.to_string()),
        "--kind",
        Kind::parse,
    )
}

/// Group and version from `--api-version`, else asked with `default_group/v1alpha1`.
pub fn api_version(
    ui: &Ui,
    given: Option<&str>,
    default_group: &str,
) -> anyhow::Result<(Group, Version)> {
    value_or_ask(
        ui,
        given,
        "API version (GROUP/VERSION)",
        Some(format!("{default_group}/v1alpha1")),
        "--api-version",
        names::parse_api_version,
    )
}

/// All names of an API, with the plural from `--plural` or the English plural of the kind.
pub fn api_names(
    ui: &Ui,
    kind_flag: Option<&str>,
    default_kind: Option<Kind>,
    api_version_flag: Option<&str>,
    default_group: &str,
    plural_flag: Option<&str>,
) -> anyhow::Result<ApiNames> {
    let kind = kind(ui, kind_flag, default_kind)?;
    let (group, version) = api_version(ui, api_version_flag, default_group)?;
    let plural = plural(plural_flag, &kind)?;
    Ok(ApiNames {
        group,
        version,
        kind,
        plural,
    })
}

/// The plural from `--plural`, else the English plural of the kind.
fn plural(flag: Option<&str>, kind: &Kind) -> anyhow::Result<String> {
    match flag {
        Some(p) => names::parse_plural(p).map_err(usage),
        None => Ok(kind.plural()),
    }
}

/// The project name: the positional argument, else asked with `<kind>-operator`.
pub fn project_name(ui: &Ui, given: Option<&str>, kind: &Kind) -> anyhow::Result<ProjectName> {
    let default = ProjectName::for_kind(kind).ok().map(|n| n.to_string());
    value_or_ask(
        ui,
        given,
        "Project name",
        default,
        "NAME",
        ProjectName::parse,
    )
}

/// The names of a Rust project's Kind. Without `--api-version` the group is named after the
/// kind, as in `memcached.example.com`. A chart makes no sense there and is refused.
pub fn rust_api_names(
    ui: &Ui,
    args: &crate::cli::ApiArgs,
    domain: &str,
) -> anyhow::Result<ApiNames> {
    if args.helm_chart.is_some() {
        return Err(UsageError::new(
            "--helm-chart is for Helm projects: a Rust project reconciles with its own controller code; drop --helm-chart (or use --type=helm with new)",
        )
        .into());
    }
    let kind = kind(ui, args.kind.as_deref(), None)?;
    let (group, version) = api_version(
        ui,
        args.api_version.as_deref(),
        &format!("{}.{domain}", kind.lower()),
    )?;
    let plural = plural(args.plural.as_deref(), &kind)?;
    Ok(ApiNames {
        group,
        version,
        kind,
        plural,
    })
}
