//! `.Capabilities` of a live cluster, as Helm fills them in for an install or upgrade: the
//! server's version, and every group version with each of its kinds (`apps/v1`,
//! `apps/v1/Deployment`), so that charts choosing an API by what the cluster serves render as
//! they do under Helm against the same cluster.

use std::collections::BTreeSet;

use super::cluster::Cluster;
use super::error::{Action, KubeError};
use crate::render::capabilities::{Capabilities, KubeVersion};

impl Cluster {
    /// Asks the server for its version; the API versions come from discovery already made.
    pub async fn capabilities(&self) -> Result<Capabilities, KubeError> {
        let info = match self.client.apiserver_version().await {
            Ok(info) => info,
            Err(e) => {
                return Err(self
                    .fail(e, Action::other("read the server version (/version)"))
                    .await);
            }
        };
        let mut kube_version =
            KubeVersion::parse(&info.git_version).map_err(|e| KubeError::BadResponse {
                endpoint: self.endpoint.clone(),
                action: Action::other("read the server version (/version)"),
                message: e.to_string(),
            })?;
        // Helm takes major and minor as the server spells them ("28+" on some providers).
        kube_version.major = info.major;
        kube_version.minor = info.minor;
        Ok(Capabilities {
            kube_version,
            api_versions: self.api_versions(),
        })
    }

    /// Every served group version, and `group/version/Kind` for each kind discovery found.
    pub fn api_versions(&self) -> Vec<String> {
        let mut versions: BTreeSet<String> = self.group_versions().map(str::to_string).collect();
        for served in self.served_kinds() {
            let api_version = &served.resource.api_version;
            versions.insert(api_version.clone());
            versions.insert(format!("{api_version}/{}", served.resource.kind));
        }
        versions.into_iter().collect()
    }
}
