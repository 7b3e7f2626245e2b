//! A Helm release as Helm 3 and 4 store it: the JSON of `pkg/release/v1.Release`, gzipped and
//! base64-encoded into the `release` key of a Secret. The shapes follow Helm's Go structs and
//! their JSON tags, so that `helm list/history/get/rollback/uninstall` read what we write and we
//! read what Helm (or the Go helm-operator) wrote.
//!
//! Fields Helm may add later, or that we do not use (`apply_method`, `info.resources`, a chart's
//! `lock`, `schemamodtime`, files' `modtime`...), are kept in `extra` maps, so that a release
//! taken over from Helm is written back without losing anything.
//!
//! The body is untrusted input (anyone who can write Secrets in the namespace can plant one), so
//! decoding bounds the decompressed size and serde_json bounds the nesting depth.

use std::collections::BTreeMap;
use std::io::Read;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use k8s_openapi::jiff::Timestamp;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value as Json};
use thiserror::Error;

/// The decompressed size refused by default: far above any real release (a Secret holds at
/// most 1 MiB compressed, and release JSON compresses some 5 to 20 times), far below memory.
pub const DEFAULT_DECODED_LIMIT: u64 = 64 * 1024 * 1024;

/// Helm's release, `pkg/release/v1.Release`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Release {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub info: Option<Info>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chart: Option<Chart>,
    /// The user-supplied values (`helm get values`), not the coalesced ones.
    #[serde(
        default,
        deserialize_with = "null_as_default",
        skip_serializing_if = "Map::is_empty"
    )]
    pub config: Map<String, Json>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub manifest: String,
    #[serde(
        default,
        deserialize_with = "null_as_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub hooks: Vec<Hook>,
    /// The revision, from 1.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub version: i64,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    /// The Secret's labels other than Helm's own (`helm install --labels`); not in the JSON.
    #[serde(skip)]
    pub labels: BTreeMap<String, String>,
    #[serde(flatten)]
    pub extra: Map<String, Json>,
}

/// `pkg/release/v1.Info`. Helm writes unset times as absent (and older Helm as `""`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Info {
    #[serde(default, with = "go_time", skip_serializing_if = "Option::is_none")]
    pub first_deployed: Option<Timestamp>,
    #[serde(default, with = "go_time", skip_serializing_if = "Option::is_none")]
    pub last_deployed: Option<Timestamp>,
    #[serde(default, with = "go_time", skip_serializing_if = "Option::is_none")]
    pub deleted: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(default, skip_serializing_if = "Status::is_empty")]
    pub status: Status,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub notes: String,
    #[serde(flatten)]
    pub extra: Map<String, Json>,
}

/// A release's status (`pkg/release/common.Status`): Helm's values, or any other text kept as is.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub enum Status {
    #[default]
    Empty,
    Unknown,
    Deployed,
    Uninstalled,
    Superseded,
    Failed,
    Uninstalling,
    PendingInstall,
    PendingUpgrade,
    PendingRollback,
    Other(String),
}

const STATUSES: [(Status, &str); 10] = [
    (Status::Empty, ""),
    (Status::Unknown, "unknown"),
    (Status::Deployed, "deployed"),
    (Status::Uninstalled, "uninstalled"),
    (Status::Superseded, "superseded"),
    (Status::Failed, "failed"),
    (Status::Uninstalling, "uninstalling"),
    (Status::PendingInstall, "pending-install"),
    (Status::PendingUpgrade, "pending-upgrade"),
    (Status::PendingRollback, "pending-rollback"),
];

impl Status {
    pub fn as_str(&self) -> &str {
        match self {
            Status::Other(s) => s,
            known => STATUSES
                .iter()
                .find(|(s, _)| s == known)
                .map_or("", |(_, text)| text),
        }
    }

    pub fn parse(text: &str) -> Status {
        STATUSES
            .iter()
            .find(|(_, t)| *t == text)
            .map_or_else(|| Status::Other(text.to_string()), |(s, _)| s.clone())
    }

    /// An operation is under way (Helm refuses another one on the release meanwhile).
    pub fn is_pending(&self) -> bool {
        matches!(
            self,
            Status::PendingInstall | Status::PendingUpgrade | Status::PendingRollback
        )
    }

    fn is_empty(&self) -> bool {
        self.as_str().is_empty()
    }
}

impl Serialize for Status {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Status {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Status, D::Error> {
        Ok(Status::parse(&String::deserialize(d)?))
    }
}

/// `pkg/chart/v2.Chart` as it is serialised: Go writes nil slices and maps as `null`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Chart {
    #[serde(default)]
    pub metadata: Option<Metadata>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub templates: Vec<File>,
    /// The chart's own values.yaml, parsed.
    #[serde(default, deserialize_with = "null_as_default")]
    pub values: Map<String, Json>,
    /// values.schema.json, base64 in the JSON as Go writes `[]byte`.
    #[serde(default, with = "go_bytes_opt")]
    pub schema: Option<Vec<u8>>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub files: Vec<File>,
    #[serde(flatten)]
    pub extra: Map<String, Json>,
}

/// `pkg/chart/v2.Metadata`: Chart.yaml. The fields the runtime reads; the rest in `extra`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Metadata {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub version: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub api_version: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub app_version: String,
    #[serde(flatten)]
    pub extra: Map<String, Json>,
}

/// `pkg/chart/common.File`: a template or other file, its bytes base64 in the JSON.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct File {
    pub name: String,
    #[serde(with = "go_bytes")]
    pub data: Vec<u8>,
    #[serde(flatten)]
    pub extra: Map<String, Json>,
}

/// `pkg/release/v1.Hook`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Hook {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub kind: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub path: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub manifest: String,
    #[serde(
        default,
        deserialize_with = "null_as_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub events: Vec<String>,
    #[serde(default)]
    pub last_run: HookExecution,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub weight: i64,
    #[serde(
        default,
        deserialize_with = "null_as_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub delete_policies: Vec<String>,
    #[serde(flatten)]
    pub extra: Map<String, Json>,
}

/// `pkg/release/v1.HookExecution`; Go always writes `phase`, even empty.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HookExecution {
    #[serde(default, with = "go_time", skip_serializing_if = "Option::is_none")]
    pub started_at: Option<Timestamp>,
    #[serde(default, with = "go_time", skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<Timestamp>,
    #[serde(default)]
    pub phase: String,
    #[serde(flatten)]
    pub extra: Map<String, Json>,
}

#[derive(Debug, Error)]
pub enum DecodeError {
    #[error("the release data is not base64: {0}")]
    Base64(#[from] base64::DecodeError),
    #[error("the release data is not valid gzip: {0}")]
    Gzip(std::io::Error),
    #[error(
        "the release data decompresses to more than {limit} bytes; a release is never that large, so it is refused (a damaged or hostile Secret)"
    )]
    TooLarge { limit: u64 },
    #[error("the release data is not a Helm release (JSON): {0}")]
    Json(#[from] serde_json::Error),
}

const GZIP_MAGIC: [u8; 3] = [0x1f, 0x8b, 0x08];

/// The Secret's `release` value (the text inside `data.release`, i.e. after the API's own
/// base64): base64 of the gzipped JSON, as Helm writes it (at gzip's best compression).
pub fn encode(release: &Release) -> String {
    // A Release holds JSON values, strings and numbers only: serialising cannot fail.
    let json = serde_json::to_vec(release).unwrap_or_default();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    // Writing to a Vec cannot fail.
    let _ = std::io::Write::write_all(&mut gz, &json);
    let bytes = gz.finish().unwrap_or_default();
    STANDARD.encode(bytes)
}

/// Decodes a Secret's `release` value with [`DEFAULT_DECODED_LIMIT`].
pub fn decode(data: &[u8]) -> Result<Release, DecodeError> {
    decode_with_limit(data, DEFAULT_DECODED_LIMIT)
}

/// Decodes as Helm does (base64, then gunzip when the gzip magic is there, else plain JSON, as
/// very old Helm 3 wrote), refusing bodies that decompress to more than `limit` bytes.
pub fn decode_with_limit(data: &[u8], limit: u64) -> Result<Release, DecodeError> {
    let bytes = STANDARD.decode(data)?;
    let json = if bytes.len() > 3 && bytes[..3] == GZIP_MAGIC {
        // Go's gzip reader reads concatenated members too.
        let reader = flate2::read::MultiGzDecoder::new(bytes.as_slice());
        let mut out = Vec::new();
        reader
            .take(limit.saturating_add(1))
            .read_to_end(&mut out)
            .map_err(DecodeError::Gzip)?;
        if out.len() as u64 > limit {
            return Err(DecodeError::TooLarge { limit });
        }
        out
    } else {
        if bytes.len() as u64 > limit {
            return Err(DecodeError::TooLarge { limit });
        }
        bytes
    };
    Ok(serde_json::from_slice(&json)?)
}

fn is_zero(n: &i64) -> bool {
    *n == 0
}

/// Go decodes `null` into a slice or map as nil; serde's `default` alone refuses `null`.
fn null_as_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// Go's `time.Time` in JSON: RFC 3339 with nanoseconds; `""` and `null` read as unset.
mod go_time {
    use super::*;

    pub fn serialize<S: Serializer>(t: &Option<Timestamp>, s: S) -> Result<S::Ok, S::Error> {
        match t {
            Some(t) => s.serialize_str(&t.to_string()),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Timestamp>, D::Error> {
        match Option::<String>::deserialize(d)? {
            None => Ok(None),
            Some(text) if text.is_empty() => Ok(None),
            Some(text) => text
                .parse::<Timestamp>()
                .map(Some)
                .map_err(|e| serde::de::Error::custom(format!("time {text:?}: {e}"))),
        }
    }
}

/// Go's `[]byte` in JSON: standard base64, nil as `null`.
mod go_bytes {
    use super::*;

    pub fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&STANDARD.encode(bytes))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        super::go_bytes_opt::deserialize(d).map(Option::unwrap_or_default)
    }
}

mod go_bytes_opt {
    use super::*;

    pub fn serialize<S: Serializer>(bytes: &Option<Vec<u8>>, s: S) -> Result<S::Ok, S::Error> {
        match bytes {
            Some(b) => s.serialize_str(&STANDARD.encode(b)),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<u8>>, D::Error> {
        match Option::<String>::deserialize(d)? {
            None => Ok(None),
            Some(text) => STANDARD
                .decode(text.as_bytes())
                .map(Some)
                .map_err(|e| serde::de::Error::custom(format!("base64: {e}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A release body shaped as Helm 4 writes it (Go's JSON of the structs, nils as null).
    fn helm_json() -> Json {
        json!({
            "name": "web",
            "info": {
                "first_deployed": "2025-01-02T03:04:05.123456789+01:00",
                "last_deployed": "2025-01-02T03:04:05.123456789+01:00",
                "deleted": "",
                "description": "Install complete",
                "status": "deployed",
                "notes": "Thanks"
            },
            "chart": {
                "metadata": {"name": "hello", "version": "0.1.0", "apiVersion": "v2", "appVersion": "1.0", "type": "application"},
                "lock": null,
                "templates": [{"name": "templates/cm.yaml", "data": "a2luZDogQ29uZmlnTWFw"}],
                "values": {"replicas": 1},
                "schema": null,
                "schemamodtime": "0001-01-01T00:00:00Z",
                "files": null
            },
            "config": {"replicas": 2},
            "manifest": "---\nkind: ConfigMap\n",
            "hooks": [{"name": "t", "kind": "Pod", "path": "p", "manifest": "m", "events": ["test"], "last_run": {"started_at": "", "completed_at": "", "phase": ""}, "weight": -5}],
            "version": 3,
            "namespace": "default",
            "apply_method": "csa"
        })
    }

    fn gzip_b64(bytes: &[u8]) -> Vec<u8> {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, bytes).unwrap();
        STANDARD.encode(gz.finish().unwrap()).into_bytes()
    }

    #[test]
    fn reads_what_helm_writes() {
        let r = decode(&gzip_b64(helm_json().to_string().as_bytes())).unwrap();
        assert_eq!(r.name, "web");
        assert_eq!(r.version, 3);
        let info = r.info.as_ref().unwrap();
        assert_eq!(info.status, Status::Deployed);
        assert_eq!(info.deleted, None);
        assert_eq!(
            info.first_deployed.unwrap().to_string(),
            "2025-01-02T02:04:05.123456789Z"
        );
        let chart = r.chart.as_ref().unwrap();
        assert_eq!(chart.metadata.as_ref().unwrap().name, "hello");
        assert_eq!(chart.templates[0].data, b"kind: ConfigMap");
        assert!(chart.files.is_empty());
        assert_eq!(r.config["replicas"], json!(2));
        assert_eq!(r.hooks[0].weight, -5);
        assert_eq!(r.hooks[0].last_run.started_at, None);
        assert_eq!(r.extra["apply_method"], json!("csa"));
    }

    #[test]
    fn round_trips_without_losing_fields() {
        let r = decode(&gzip_b64(helm_json().to_string().as_bytes())).unwrap();
        let again = decode(encode(&r).as_bytes()).unwrap();
        assert_eq!(again, r);
        let written: Json = serde_json::to_value(&r).unwrap();
        // Go's shapes: unset times absent, nil slices null, kept fields back in place.
        assert!(written["info"].get("deleted").is_none());
        assert_eq!(written["chart"]["schema"], Json::Null);
        assert_eq!(written["chart"]["lock"], Json::Null);
        assert_eq!(
            written["chart"]["schemamodtime"],
            json!("0001-01-01T00:00:00Z")
        );
        assert_eq!(written["hooks"][0]["last_run"], json!({"phase": ""}));
        assert_eq!(written["apply_method"], json!("csa"));
    }

    #[test]
    fn reads_plain_json_as_helm_does() {
        let plain = STANDARD.encode(helm_json().to_string());
        assert_eq!(decode(plain.as_bytes()).unwrap().name, "web");
    }

    #[test]
    fn refuses_a_gzip_bomb_without_inflating_it() {
        // 64 MiB of zeros compress to some 64 KiB; only limit + 1 bytes are ever inflated.
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        let zeros = vec![0u8; 1 << 20];
        for _ in 0..64 {
            std::io::Write::write_all(&mut gz, &zeros).unwrap();
        }
        let bomb = STANDARD.encode(gz.finish().unwrap());
        let err = decode_with_limit(bomb.as_bytes(), 1 << 20).unwrap_err();
        assert!(
            matches!(err, DecodeError::TooLarge { limit } if limit == 1 << 20),
            "{err}"
        );
    }

    #[test]
    fn damaged_bodies_are_errors() {
        assert!(matches!(decode(b"%%%"), Err(DecodeError::Base64(_))));
        let mut truncated = gzip_b64(helm_json().to_string().as_bytes());
        let bytes = STANDARD.decode(&truncated).unwrap();
        truncated = STANDARD.encode(&bytes[..bytes.len() / 2]).into_bytes();
        assert!(matches!(decode(&truncated), Err(DecodeError::Gzip(_))));
        assert!(matches!(
            decode(&gzip_b64(b"[1,2]")),
            Err(DecodeError::Json(_))
        ));
        let deep = "[".repeat(10_000);
        assert!(matches!(
            decode(&gzip_b64(deep.as_bytes())),
            Err(DecodeError::Json(_))
        ));
    }

    #[test]
    fn statuses_keep_unknown_text() {
        assert_eq!(Status::parse("pending-upgrade"), Status::PendingUpgrade);
        assert!(Status::PendingUpgrade.is_pending());
        assert_eq!(Status::parse("exotic").as_str(), "exotic");
    }
}
