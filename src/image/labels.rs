//! The OCI annotations operator-rs puts on every image it builds (where its source lives, which
//! version it is, when it was made), so `docker inspect` on a running operator answers "what is
//! this?" without guessing.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{SystemTime, UNIX_EPOCH};

pub const SOURCE: &str = "org.opencontainers.image.source";
pub const VERSION: &str = "org.opencontainers.image.version";
pub const CREATED: &str = "org.opencontainers.image.created";
pub const TITLE: &str = "org.opencontainers.image.title";

/// What the labels are made from.
#[derive(Debug, Clone)]
pub struct LabelInputs<'a> {
    pub project_name: &'a str,
    /// A URL to the source; without one the label is left out rather than filled with a path
    /// that means nothing on another machine.
    pub source: Option<&'a str>,
    pub version: &'a str,
    pub created_unix: u64,
}

/// The labels in a fixed order; user-given labels with the same key win (the caller drops ours).
pub fn oci_labels(inputs: &LabelInputs<'_>) -> Vec<(String, String)> {
    let mut labels = Vec::new();
    if let Some(source) = inputs.source {
        labels.push((SOURCE.to_string(), source.to_string()));
    }
    labels.push((VERSION.to_string(), inputs.version.to_string()));
    labels.push((CREATED.to_string(), rfc3339_utc(inputs.created_unix)));
    labels.push((TITLE.to_string(), inputs.project_name.to_string()));
    labels
}

/// The build time in seconds since 1970: `SOURCE_DATE_EPOCH` when set (reproducible builds),
/// otherwise now. Returns the invalid value as the error.
pub fn build_time(source_date_epoch: Option<&str>) -> Result<u64, String> {
    match source_date_epoch {
        Some(value) if !value.is_empty() => value.trim().parse::<u64>().map_err(|_| {
            format!("SOURCE_DATE_EPOCH is \"{value}\"; it must be whole seconds since 1970-01-01")
        }),
        _ => Ok(SystemTime::now()
            .duration_since(UNIX_EPOCH)
            // A clock before 1970 is a broken clock; 1970 is as good a time as any then.
            .map_or(0, |d| d.as_secs())),
    }
}

/// `YYYY-MM-DDTHH:MM:SSZ` for seconds since the Unix epoch.
pub fn rfc3339_utc(unix: u64) -> String {
    let days = unix / 86_400;
    let secs = unix % 86_400;
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        secs / 3600,
        secs % 3600 / 60,
        secs % 60
    )
}

/// Days since 1970-01-01 to a proleptic Gregorian date. Howard Hinnant's algorithm: shift the
/// year to start in March so the leap day is last, then count 400-year eras.
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097; // day of era, 0..=146096
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365; // year of era, 0..=399
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100); // day of (March-based) year
    let mp = (5 * doy + 2) / 153; // March-based month, 0..=11
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

/// The URL of the project's git remote (`origin`, else the first one), without any user name or
/// token an https remote may carry. `None` when the project is not in git, has no remote, or git
/// is not installed.
pub fn git_source(root: &Path) -> Option<String> {
    let git = |args: &[&str]| -> Option<String> {
        let output = Command::new("git")
            .arg("-C")
            .arg(root)
            .args(args)
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .ok()?;
        let text = String::from_utf8(output.stdout).ok()?;
        output.status.success().then(|| text.trim().to_string())
    };
    let remote = match git(&["remote", "get-url", "origin"]) {
        Some(url) if !url.is_empty() => url,
        _ => {
            let remotes = git(&["remote"])?;
            let first = remotes.lines().next()?.trim().to_string();
            git(&["remote", "get-url", &first])?
        }
    };
    (!remote.is_empty()).then(|| strip_userinfo(&remote))
}

/// `https://user:token@host/x` -> `https://host/x`; a credential must never end up in an image.
/// scp-like remotes (`git@host:org/repo.git`) name a login user, not a secret, and stay.
pub fn strip_userinfo(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let (authority, path) = rest.split_at(authority_end);
    match authority.rfind('@') {
        Some(at) => format!("{scheme}://{}{path}", &authority[at + 1..]),
        None => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_civil_dates() {
        assert_eq!(rfc3339_utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339_utc(86_399), "1970-01-01T23:59:59Z");
        assert_eq!(rfc3339_utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339_utc(951_868_800), "2000-03-01T00:00:00Z");
        assert_eq!(rfc3339_utc(1_709_251_199), "2024-02-29T23:59:59Z");
        assert_eq!(rfc3339_utc(4_107_542_400), "2100-03-01T00:00:00Z");
        assert_eq!(rfc3339_utc(1_234_567_890), "2009-02-13T23:31:30Z");
        assert_eq!(rfc3339_utc(253_402_300_799), "9999-12-31T23:59:59Z");
    }

    #[test]
    fn agrees_with_a_day_by_day_count() {
        // Walk every day of 1970..2200 and compare with a naive calendar.
        let mut days = 0u64;
        for year in 1970..2200u64 {
            let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
            let lengths = [
                31,
                if leap { 29 } else { 28 },
                31,
                30,
                31,
                30,
                31,
                31,
                30,
                31,
                30,
                31,
            ];
            for (m, len) in lengths.iter().enumerate() {
                for d in 1..=*len {
                    assert_eq!(civil_from_days(days), (year, m as u64 + 1, d));
                    days += 1;
                }
            }
        }
    }

    #[test]
    fn honours_source_date_epoch() {
        assert_eq!(build_time(Some("1700000000")), Ok(1_700_000_000));
        assert!(
            build_time(Some("yesterday"))
                .unwrap_err()
                .contains("SOURCE_DATE_EPOCH")
        );
        assert!(build_time(None).unwrap() > 1_700_000_000);
        assert!(build_time(Some("")).unwrap() > 1_700_000_000);
    }

    #[test]
    fn labels_leave_out_an_unknown_source() {
        let inputs = LabelInputs {
            project_name: "demo",
            source: None,
            version: "v1",
            created_unix: 0,
        };
        let labels = oci_labels(&inputs);
        assert!(labels.iter().all(|(k, _)| k != SOURCE));
        assert!(labels.contains(&(CREATED.to_string(), "1970-01-01T00:00:00Z".to_string())));
        assert!(labels.contains(&(VERSION.to_string(), "v1".to_string())));
    }

    #[test]
    fn strips_credentials_from_remotes() {
        assert_eq!(
            strip_userinfo("https://me:ghp_secret@git.example.com/team/op.git"),
            "https://git.example.com/team/op.git"
        );
        assert_eq!(
            strip_userinfo("https://git.example.com/a@b"),
            "https://git.example.com/a@b"
        );
        assert_eq!(
            strip_userinfo("git@git.example.com:team/op.git"),
            "git@git.example.com:team/op.git"
        );
    }

    #[test]
    fn reads_the_git_remote() {
        let dir = tempfile::tempdir().unwrap();
        let run = |args: &[&str]| {
            let status = Command::new("git")
                .arg("-C")
                .arg(dir.path())
                .args(args)
                .stdout(Stdio::null())
                .status()
                .unwrap();
            assert!(status.success());
        };
        assert_eq!(git_source(dir.path()), None);
        run(&["init", "-q"]);
        assert_eq!(git_source(dir.path()), None);
        run(&[
            "remote",
            "add",
            "upstream",
            "https://tok@git.example.com/u/op",
        ]);
        assert_eq!(
            git_source(dir.path()).as_deref(),
            Some("https://git.example.com/u/op")
        );
        run(&["remote", "add", "origin", "https://git.example.com/o/op"]);
        assert_eq!(
            git_source(dir.path()).as_deref(),
            Some("https://git.example.com/o/op")
        );
    }
}
