//! Pushes a chart into an OCI registry through the distribution API, as `helm push` does: the
//! config blob (Chart.yaml as JSON), the chart layer, then the manifest naming both.

use operator_rs::chart::download::sha256_hex;
use operator_rs::chart::oci::{CHART_CONFIG_MEDIA_TYPE, CHART_LAYER_MEDIA_TYPE};
use reqwest::Url;

/// Pushes `chart_tgz` as `<repository>:<tag>` to the registry at `base` (`http://host:port`);
/// returns the manifest's digest (`sha256:...`).
pub fn push_chart(
    base: &str,
    repository: &str,
    tag: &str,
    chart_tgz: &[u8],
    config_json: &str,
) -> String {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let client = reqwest::Client::new();
        let base = Url::parse(base).unwrap();
        let config = upload_blob(&client, &base, repository, config_json.as_bytes()).await;
        let layer = upload_blob(&client, &base, repository, chart_tgz).await;
        let manifest = serde_json::json!({
            "schemaVersion": 2,
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "config": {"mediaType": CHART_CONFIG_MEDIA_TYPE, "digest": config, "size": config_json.len()},
            "layers": [{"mediaType": CHART_LAYER_MEDIA_TYPE, "digest": layer, "size": chart_tgz.len()}],
            "annotations": {"org.opencontainers.image.title": repository.rsplit('/').next().unwrap()},
        });
        let body = serde_json::to_vec(&manifest).unwrap();
        let url = base.join(&format!("/v2/{repository}/manifests/{tag}")).unwrap();
        let response = client
            .put(url)
            .header("Content-Type", "application/vnd.oci.image.manifest.v1+json")
            .body(body.clone())
            .send()
            .await
            .unwrap();
        let status = response.status();
        assert!(status.is_success(), "manifest upload: {status} {}", response.text().await.unwrap());
        format!("sha256:{}", sha256_hex(&body))
    })
}

async fn upload_blob(
    client: &reqwest::Client,
    base: &Url,
    repository: &str,
    bytes: &[u8],
) -> String {
    let digest = format!("sha256:{}", sha256_hex(bytes));
    let start = base
        .join(&format!("/v2/{repository}/blobs/uploads/"))
        .unwrap();
    let response = client.post(start).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 202, "blob upload start");
    let location = response.headers()["location"].to_str().unwrap().to_string();
    let mut url = base.join(&location).unwrap();
    url.query_pairs_mut().append_pair("digest", &digest);
    let response = client
        .put(url)
        .header("Content-Type", "application/octet-stream")
        .body(bytes.to_vec())
        .send()
        .await
        .unwrap();
    let status = response.status();
    assert!(
        status.is_success(),
        "blob upload: {status} {}",
        response.text().await.unwrap()
    );
    digest
}
