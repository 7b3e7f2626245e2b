//! Which chart version a user asked for: none (the newest release), an exact version, or a
//! constraint in Helm's syntax (`~2.9`, `^1.2`, `>=1.0 <2.0`, `1.2.x`, `1.2 - 1.4`, `a || b`).
//!
//! Helm reads constraints with Masterminds/semver, whose syntax differs from Cargo's in ways that
//! matter: a bare `1.2.3` means exactly that version (Cargo reads it as `^1.2.3`), comparators are
//! separated by spaces as well as commas, and `||` joins alternatives. Constraints are translated
//! into `semver::VersionReq`s here so the rest of the code never meets either syntax.

use std::cmp::Ordering;

use semver::{Version, VersionReq};
use thiserror::Error;

/// How many versions a "no such version" error lists.
const LISTED_VERSIONS: usize = 8;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VersionSpec {
    /// The newest version that is not a prerelease.
    Latest,
    /// Exactly this version (a leading `v` is ignored when comparing).
    Exact(String),
    /// Any version matching one of the alternatives; the newest match wins.
    Constraint {
        text: String,
        alternatives: Vec<VersionReq>,
    },
}

#[derive(Debug, Error, PartialEq, Eq)]
#[error(
    "chart version \"{text}\" is neither a version nor a constraint: {why} (examples: 1.2.3, ~1.2, ^1.2, \">=1.0 <2.0\")"
)]
pub struct BadVersion {
    pub text: String,
    pub why: String,
}

/// No version matched; `newest` lists the newest versions that exist, newest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoMatch {
    pub newest: Vec<String>,
    /// Versions exist, but every one is a prerelease and none was asked for.
    pub only_prereleases: bool,
}

impl VersionSpec {
    /// Reads `--helm-chart-version` (or a dependency's `version`); `None` or empty means latest.
    pub fn parse(text: Option<&str>) -> Result<VersionSpec, BadVersion> {
        let Some(text) = text.map(str::trim).filter(|t| !t.is_empty() && *t != "*") else {
            return Ok(VersionSpec::Latest);
        };
        if parse_version(text).is_some() {
            return Ok(VersionSpec::Exact(text.to_string()));
        }
        let bad = |why: String| BadVersion {
            text: text.to_string(),
            why,
        };
        let mut alternatives = Vec::new();
        for alternative in text.split("||") {
            let cargo = translate(alternative.trim()).map_err(bad)?;
            let req = VersionReq::parse(&cargo).map_err(|e| bad(e.to_string()))?;
            alternatives.push(req);
        }
        Ok(VersionSpec::Constraint {
            text: text.to_string(),
            alternatives,
        })
    }

    pub fn is_latest(&self) -> bool {
        matches!(self, VersionSpec::Latest)
    }

    /// Does `version` (as written in an index or tag list) satisfy this spec?
    pub fn matches(&self, version: &str) -> bool {
        match self {
            VersionSpec::Latest => parse_version(version).is_some_and(|v| v.pre.is_empty()),
            VersionSpec::Exact(wanted) => {
                wanted == version
                    || matches!((parse_version(wanted), parse_version(version)), (Some(a), Some(b)) if a == b)
            }
            VersionSpec::Constraint { alternatives, .. } => parse_version(version)
                .is_some_and(|v| alternatives.iter().any(|req| req.matches(&v))),
        }
    }

    /// Picks the newest of `candidates` that matches; `Err` lists what exists instead.
    pub fn select<'a, I>(&self, candidates: I) -> Result<&'a str, NoMatch>
    where
        I: IntoIterator<Item = &'a str>,
    {
        let candidates: Vec<&str> = candidates.into_iter().collect();
        let best = candidates
            .iter()
            .copied()
            .filter(|c| self.matches(c))
            .max_by(|a, b| compare(a, b));
        if let Some(best) = best {
            return Ok(best);
        }
        let mut sorted = candidates.clone();
        sorted.sort_by(|a, b| compare(b, a));
        sorted.dedup();
        let only_prereleases = self.is_latest()
            && !sorted.is_empty()
            && sorted
                .iter()
                .all(|c| parse_version(c).is_none_or(|v| !v.pre.is_empty()));
        Err(NoMatch {
            newest: sorted
                .into_iter()
                .take(LISTED_VERSIONS)
                .map(str::to_string)
                .collect(),
            only_prereleases,
        })
    }
}

impl std::fmt::Display for VersionSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            VersionSpec::Latest => f.write_str("release version"),
            VersionSpec::Exact(v) => write!(f, "version {v}"),
            VersionSpec::Constraint { text, .. } => write!(f, "version matching \"{text}\""),
        }
    }
}

/// Parses a version as Helm writes them: semver with an optional leading `v`.
pub fn parse_version(text: &str) -> Option<Version> {
    let text = text.trim();
    Version::parse(text.strip_prefix('v').unwrap_or(text)).ok()
}

/// Would Helm take `text` as a chart `version`? Helm checks it with Masterminds/semver's
/// `NewVersion`, which is looser than semver: a leading `v`, and missing minor or patch parts
/// (`1`, `v1.2`), are accepted; pre-release and build identifiers follow semver's rules.
pub fn is_helm_version(text: &str) -> bool {
    let text = text.strip_prefix('v').unwrap_or(text);
    let (rest, build) = match text.split_once('+') {
        Some((rest, build)) => (rest, Some(build)),
        None => (text, None),
    };
    let (core, pre) = match rest.split_once('-') {
        Some((core, pre)) => (core, Some(pre)),
        None => (rest, None),
    };
    let parts: Vec<&str> = core.split('.').collect();
    let numeric = |p: &&str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    // Each part must also fit in 64 bits, as Masterminds parses them into u64s.
    let core_ok = (1..=3).contains(&parts.len())
        && parts.iter().all(|p| numeric(p) && p.parse::<u64>().is_ok());
    let identifier =
        |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    let pre_ok = pre.is_none_or(|pre| {
        pre.split('.').all(|p| {
            identifier(p)
                && !(p.len() > 1 && p.starts_with('0') && p.bytes().all(|b| b.is_ascii_digit()))
        })
    });
    let build_ok = build.is_none_or(|build| build.split('.').all(identifier));
    core_ok && pre_ok && build_ok
}

/// Orders versions: semver order for versions, text order (below every version) for the rest.
pub fn compare(a: &str, b: &str) -> Ordering {
    match (parse_version(a), parse_version(b)) {
        (Some(x), Some(y)) => x.cmp(&y),
        (Some(_), None) => Ordering::Greater,
        (None, Some(_)) => Ordering::Less,
        (None, None) => a.cmp(b),
    }
}

/// One Masterminds alternative (comparators joined by spaces or commas) -> Cargo's syntax.
fn translate(alternative: &str) -> Result<String, String> {
    if alternative.is_empty() {
        return Err("an alternative around `||` is empty".to_string());
    }
    // A hyphen range, `1.2 - 1.4`: both ends inclusive.
    if let Some((low, high)) = alternative.split_once(" - ") {
        let (low, high) = (low.trim(), high.trim());
        if low.is_empty() || high.is_empty() {
            return Err("a hyphen range needs a version on both sides".to_string());
        }
        return Ok(format!(">={}, <={}", strip_v(low), strip_v(high)));
    }
    // Tokens, with an operator written apart from its version (`>= 1.0`) joined to it.
    let mut comparators: Vec<String> = Vec::new();
    let mut pending_operator: Option<&str> = None;
    for token in alternative
        .split([' ', ','])
        .map(str::trim)
        .filter(|t| !t.is_empty())
    {
        if token.chars().all(|c| "<>=!~^".contains(c)) {
            if pending_operator.is_some() {
                return Err(format!("two operators in a row near \"{token}\""));
            }
            pending_operator = Some(token);
            continue;
        }
        let comparator = match pending_operator.take() {
            Some(op) => format!("{op}{token}"),
            None => token.to_string(),
        };
        comparators.push(comparator_to_cargo(&comparator)?);
    }
    if let Some(op) = pending_operator {
        return Err(format!("operator \"{op}\" has no version after it"));
    }
    Ok(comparators.join(", "))
}

fn comparator_to_cargo(comparator: &str) -> Result<String, String> {
    let split = comparator
        .find(|c: char| !"<>=!~^".contains(c))
        .unwrap_or(comparator.len());
    let (op, version) = comparator.split_at(split);
    let version = strip_v(version);
    if version.is_empty() {
        return Err(format!("\"{comparator}\" has no version"));
    }
    let op = match op {
        // Masterminds: a bare version is an exact match (with wildcards for missing parts);
        // Cargo reads a bare version as a caret requirement, so say `=` explicitly.
        "" | "=" | "==" => "=",
        "~" | "~>" => "~",
        "^" | ">" | ">=" | "<" | "<=" => op,
        "!=" => {
            return Err(format!(
                "\"{comparator}\": `!=` is not supported; use a range instead"
            ));
        }
        other => return Err(format!("unknown operator \"{other}\"")),
    };
    if version == "*" || version.eq_ignore_ascii_case("x") {
        return Ok("*".to_string());
    }
    Ok(format!("{op}{version}"))
}

fn strip_v(version: &str) -> &str {
    version.strip_prefix('v').unwrap_or(version)
}

#[cfg(test)]
mod tests {
    use super::*;

    const VERSIONS: &[&str] = &[
        "1.0.0",
        "1.2.0",
        "1.2.5",
        "1.3.0",
        "2.0.0-rc.1",
        "2.8.4",
        "2.9.0",
        "2.9.3",
        "2.10.0",
        "3.0.0-beta.2",
    ];

    fn pick(spec: &str) -> Result<&'static str, NoMatch> {
        VersionSpec::parse(Some(spec))
            .unwrap()
            .select(VERSIONS.iter().copied())
    }

    #[test]
    fn helm_versions_follow_masterminds() {
        for good in [
            "1.2.3",
            "v1.2.3",
            "1",
            "1.2",
            "2.13.0-rc.1+build.5",
            "0.0.0-0",
        ] {
            assert!(is_helm_version(good), "{good}");
        }
        for bad in [
            "",
            "%VERSION%",
            "1.2.3.4",
            "1..2",
            "1.2.3-",
            "1.2.3-01",
            "1.2.3+",
            "x1",
            "1.2.3-a_b",
            "99999999999999999999",
        ] {
            assert!(!is_helm_version(bad), "{bad}");
        }
    }

    #[test]
    fn latest_skips_prereleases() {
        let spec = VersionSpec::parse(None).unwrap();
        assert_eq!(spec, VersionSpec::Latest);
        assert_eq!(spec.select(VERSIONS.iter().copied()), Ok("2.10.0"));
        assert_eq!(VersionSpec::parse(Some("  ")).unwrap(), VersionSpec::Latest);
    }

    #[test]
    fn exact_versions_match_exactly_even_prereleases() {
        assert_eq!(pick("1.2.0"), Ok("1.2.0"));
        assert_eq!(pick("v1.2.0"), Ok("1.2.0"));
        assert_eq!(pick("2.0.0-rc.1"), Ok("2.0.0-rc.1"));
        let err = pick("1.2.1").unwrap_err();
        assert_eq!(err.newest[0], "3.0.0-beta.2");
        assert_eq!(err.newest.len(), LISTED_VERSIONS);
        assert!(!err.only_prereleases);
    }

    #[test]
    fn helm_constraints() {
        assert_eq!(pick("~2.9"), Ok("2.9.3"));
        assert_eq!(pick("~2.9.0"), Ok("2.9.3"));
        assert_eq!(pick("^1.2"), Ok("1.3.0"));
        assert_eq!(pick(">=1.0 <2.0"), Ok("1.3.0"));
        assert_eq!(pick(">= 1.0, < 2.0"), Ok("1.3.0"));
        assert_eq!(pick("1.2.x"), Ok("1.2.5"));
        assert_eq!(pick("1.2"), Ok("1.2.5"));
        assert_eq!(pick("1.2 - 2.8.4"), Ok("2.8.4"));
        assert_eq!(pick("<1.1 || ~2.9"), Ok("2.9.3"));
        assert_eq!(pick(">2.9.3"), Ok("2.10.0"));
        assert_eq!(pick("*"), Ok("2.10.0"));
        // A constraint without a prerelease never picks one.
        assert_eq!(pick(">=2.10.0"), Ok("2.10.0"));
        assert!(pick("^4").is_err());
    }

    #[test]
    fn bad_constraints_say_why() {
        for bad in ["!=1.0", ">=", "1.0 ||", "banana", ">= >= 1"] {
            let err = VersionSpec::parse(Some(bad)).unwrap_err();
            assert_eq!(err.text, bad);
            assert!(err.to_string().contains("examples"), "{err}");
        }
    }

    #[test]
    fn only_prereleases_is_reported() {
        let spec = VersionSpec::Latest;
        let err = spec.select(["1.0.0-alpha", "1.0.0-beta"]).unwrap_err();
        assert!(err.only_prereleases);
        assert_eq!(err.newest, vec!["1.0.0-beta", "1.0.0-alpha"]);
    }

    #[test]
    fn non_semver_versions_sort_last_and_match_only_exactly() {
        assert_eq!(compare("1.0.0", "%VERSION%"), Ordering::Greater);
        let spec = VersionSpec::parse(Some("%VERSION%")).unwrap_err();
        assert!(spec.why.contains("unexpected") || !spec.why.is_empty());
        let exact = VersionSpec::Exact("latest-dev".into());
        assert_eq!(exact.select(["latest-dev", "1.0.0"]), Ok("latest-dev"));
    }
}
