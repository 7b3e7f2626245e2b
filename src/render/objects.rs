//! The host objects templates reach: `.Files` and `.Capabilities` (with `.KubeVersion`,
//! `.APIVersions` and `.HelmVersion`), with the fields and methods Helm gives them.

use std::collections::BTreeMap;
use std::sync::Arc;

use base64::Engine as _;
use gotemplate::{Error, Map, Object, Value};

use super::capabilities::{self, Capabilities, KubeVersion};
use super::glob::files_glob;
use super::go_json::yaml_node;
use super::go_yaml;
use super::version_watch::VersionReads;

/// A chart's files other than templates (`.Files`): Go's `map[string][]byte` with methods.
#[derive(Debug, Clone, Default)]
pub struct Files(pub Arc<BTreeMap<String, Arc<[u8]>>>);

impl Files {
    pub fn new(files: BTreeMap<String, Arc<[u8]>>) -> Files {
        Files(Arc::new(files))
    }

    fn get(&self, name: &str) -> String {
        self.0
            .get(name)
            .map(|b| crate::text::lossy(b).into_owned())
            .unwrap_or_default()
    }

    fn glob(&self, pattern: &str) -> Files {
        Files::new(
            self.0
                .iter()
                .filter(|(name, _)| files_glob(pattern, name))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        )
    }

    /// A map of base name -> text, as `toYaml` writes it.
    fn as_yaml(&self, encode: impl Fn(&[u8]) -> String) -> String {
        let mut by_base: BTreeMap<String, String> = BTreeMap::new();
        for (name, data) in self.0.iter() {
            let base = name.rsplit('/').next().unwrap_or(name);
            by_base.insert(base.to_string(), encode(data));
        }
        if by_base.is_empty() {
            return "{}".to_string();
        }
        let map: Map = by_base
            .into_iter()
            .map(|(k, v)| (k, Value::String(v)))
            .collect();
        match yaml_node(&Value::Map(map)) {
            Ok(node) => go_yaml::emit(&node.sorted())
                .trim_end_matches('\n')
                .to_string(),
            Err(_) => String::new(),
        }
    }

    fn lines(&self, name: &str) -> Vec<Value> {
        let Some(data) = self.0.get(name).filter(|d| !d.is_empty()) else {
            return Vec::new();
        };
        let text = crate::text::lossy(data);
        let text = text.strip_suffix('\n').unwrap_or(&text);
        text.split('\n')
            .map(|l| Value::String(l.to_string()))
            .collect()
    }
}

fn string_arg(name: &str, args: &[Value], i: usize) -> Result<String, Error> {
    match args.get(i) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(Error::func(format!(
            "wrong type for value; expected string; got {}",
            other.type_name()
        ))),
        None => Err(Error::func(format!(
            "wrong number of args for {name}: want 1 got {}",
            args.len()
        ))),
    }
}

impl Object for Files {
    fn type_name(&self) -> String {
        "engine.files".to_string()
    }

    fn call_method(&self, name: &str, args: &[Value]) -> Option<Result<Value, Error>> {
        let result = match name {
            "Get" => string_arg(name, args, 0).map(|p| Value::String(self.get(&p))),
            // Go's `[]byte`; a missing file is an empty one (not nil).
            "GetBytes" => string_arg(name, args, 0)
                .map(|p| Value::Bytes(self.0.get(&p).cloned().unwrap_or_else(|| Arc::from([])))),
            "Glob" => string_arg(name, args, 0).map(|p| Value::Object(Arc::new(self.glob(&p)))),
            "Lines" => string_arg(name, args, 0).map(|p| Value::list(self.lines(&p))),
            "AsConfig" => Ok(Value::String(
                self.as_yaml(|b| crate::text::lossy(b).into_owned()),
            )),
            "AsSecrets" => {
                Ok(Value::String(self.as_yaml(|b| {
                    base64::engine::general_purpose::STANDARD.encode(b)
                })))
            }
            _ => return None,
        };
        Some(result)
    }

    fn format(&self) -> String {
        let entries: Vec<String> = self
            .0
            .iter()
            .map(|(k, v)| format!("{k}:{}", Value::Bytes(v.clone())))
            .collect();
        format!("map[{}]", entries.join(" "))
    }

    fn to_value(&self) -> Option<Value> {
        self.underlying()
    }

    fn zero_element(&self) -> Value {
        Value::Bytes(Arc::from([]))
    }

    /// Helm's `Files` is a `map[string][]byte`: templates range over it (in key order), take
    /// its `len`, `index` it by name and test it for emptiness, as over any map.
    fn underlying(&self) -> Option<Value> {
        Some(Value::Map(
            self.0
                .iter()
                .map(|(k, v)| (k.clone(), Value::Bytes(v.clone())))
                .collect(),
        ))
    }
}

/// `.Capabilities`. With `reads`, it reports what templates read of the Kubernetes version
/// besides its version string (see `version_watch`).
#[derive(Debug, Clone)]
pub struct CapabilitiesObject {
    pub capabilities: Arc<Capabilities>,
    pub reads: Option<Arc<VersionReads>>,
}

impl CapabilitiesObject {
    fn kube_version(&self) -> KubeVersionObject {
        KubeVersionObject {
            version: self.capabilities.kube_version.clone(),
            reads: self.reads.clone(),
        }
    }
}

impl Object for CapabilitiesObject {
    fn type_name(&self) -> String {
        "*common.Capabilities".to_string()
    }

    fn field(&self, name: &str) -> Option<Value> {
        match name {
            "KubeVersion" => Some(Value::Object(Arc::new(self.kube_version()))),
            "APIVersions" => Some(Value::Object(Arc::new(ApiVersions(Arc::new(
                self.capabilities.api_versions.clone(),
            ))))),
            "HelmVersion" => Some(Value::Object(Arc::new(HelmVersion))),
            _ => None,
        }
    }

    fn format(&self) -> String {
        format!(
            "&{{{} {} {}}}",
            self.kube_version().format(),
            ApiVersions(Arc::new(self.capabilities.api_versions.clone())).format(),
            HelmVersion.format()
        )
    }

    fn to_value(&self) -> Option<Value> {
        let map = Map::new();
        for key in ["KubeVersion", "APIVersions", "HelmVersion"] {
            if let Some(Value::Object(ref o)) = self.field(key) {
                map.insert(key, o.to_value().unwrap_or_default());
            }
        }
        Some(Value::Map(map))
    }
}

#[derive(Debug, Clone)]
pub struct KubeVersionObject {
    pub version: KubeVersion,
    pub reads: Option<Arc<VersionReads>>,
}

impl KubeVersionObject {
    fn record(&self, what: &'static str) {
        if let Some(reads) = &self.reads {
            reads.record(what);
        }
    }
}

impl Object for KubeVersionObject {
    fn type_name(&self) -> String {
        "common.KubeVersion".to_string()
    }

    fn field(&self, name: &str) -> Option<Value> {
        let v = &self.version;
        match name {
            "Version" | "GitVersion" => Some(Value::String(v.version.clone())),
            "Major" => {
                self.record("Major");
                Some(Value::String(v.major.clone()))
            }
            "Minor" => {
                self.record("Minor");
                Some(Value::String(v.minor.clone()))
            }
            _ => None,
        }
    }

    fn call_method(&self, name: &str, _args: &[Value]) -> Option<Result<Value, Error>> {
        match name {
            "String" => Some(Ok(Value::String(self.version.normalized.clone()))),
            "GitVersion" => Some(Ok(Value::String(self.version.version.clone()))),
            _ => None,
        }
    }

    fn format(&self) -> String {
        self.version.normalized.clone()
    }

    fn to_value(&self) -> Option<Value> {
        // Its Major and Minor go with it.
        self.record("the whole version as a value");
        let map = Map::new();
        map.insert("Version", Value::String(self.version.version.clone()));
        map.insert("Major", Value::String(self.version.major.clone()));
        map.insert("Minor", Value::String(self.version.minor.clone()));
        Some(Value::Map(map))
    }
}

/// `.Capabilities.APIVersions`: a list of strings with `Has`.
#[derive(Debug, Clone)]
pub struct ApiVersions(pub Arc<Vec<String>>);

impl Object for ApiVersions {
    fn type_name(&self) -> String {
        "common.VersionSet".to_string()
    }

    fn call_method(&self, name: &str, args: &[Value]) -> Option<Result<Value, Error>> {
        match name {
            "Has" => Some(string_arg(name, args, 0).map(|v| Value::Bool(self.0.contains(&v)))),
            _ => None,
        }
    }

    fn format(&self) -> String {
        format!("[{}]", self.0.join(" "))
    }

    fn to_value(&self) -> Option<Value> {
        Some(Value::list(
            self.0.iter().map(|s| Value::String(s.clone())).collect(),
        ))
    }
}

/// `.Capabilities.HelmVersion`: the Helm release whose behaviour is implemented.
#[derive(Debug, Clone)]
pub struct HelmVersion;

impl Object for HelmVersion {
    fn type_name(&self) -> String {
        "version.BuildInfo".to_string()
    }

    fn field(&self, name: &str) -> Option<Value> {
        match name {
            "Version" => Some(Value::str(capabilities::HELM_VERSION)),
            "GitCommit" | "GitTreeState" => Some(Value::str("")),
            "GoVersion" => Some(Value::str(capabilities::HELM_GO_VERSION)),
            "KubeClientVersion" => Some(Value::str(capabilities::HELM_KUBE_CLIENT_VERSION)),
            _ => None,
        }
    }

    fn format(&self) -> String {
        format!(
            "{{{}  {} {} {}}}",
            capabilities::HELM_VERSION,
            "",
            capabilities::HELM_GO_VERSION,
            capabilities::HELM_KUBE_CLIENT_VERSION
        )
    }

    fn to_value(&self) -> Option<Value> {
        let map = Map::new();
        map.insert("version", Value::str(capabilities::HELM_VERSION));
        map.insert("go_version", Value::str(capabilities::HELM_GO_VERSION));
        map.insert(
            "kube_client_version",
            Value::str(capabilities::HELM_KUBE_CLIENT_VERSION),
        );
        Some(Value::Map(map))
    }
}
