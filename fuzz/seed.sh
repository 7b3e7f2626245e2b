#!/usr/bin/env bash
# Seeds the fuzz corpora from the shared charts (../../shared/charts beside the repository, or
# $CHARTS): values files for values_yaml, small charts packed for chart_archive, and a Helm-shaped
# release body for stored_release. Each input starts with the target's mode byte (see the
# targets' docs): 0 as is, 1 tar (chart_archive) or base64 of the bytes (stored_release), 2
# JSON to gzip and base64 (stored_release).
set -euo pipefail
cd "$(dirname "$0")"
charts=${CHARTS:-../../shared/charts}
mkdir -p corpus/values_yaml corpus/chart_archive corpus/stored_release
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for chart in "$charts"/*/; do
    name=$(basename "$chart")
    [ -f "$chart/values.yaml" ] && cp "$chart/values.yaml" "corpus/values_yaml/$name"
    # Large charts make slow inputs: pack the chart's Chart.yaml, values and two templates.
    mkdir -p "$tmp/$name/$name/templates"
    cp "$chart/Chart.yaml" "$tmp/$name/$name/"
    [ -f "$chart/values.yaml" ] && head -c 16384 "$chart/values.yaml" >"$tmp/$name/$name/values.yaml"
    find "$chart/templates" -maxdepth 1 -type f | sort | head -n 2 | xargs -r -I{} cp {} "$tmp/$name/$name/templates/"
    # A link inside the chart, which the loader turns into a copy.
    ln -s ../Chart.yaml "$tmp/$name/$name/templates/Chart.link"
    tar -C "$tmp/$name" --format=gnu -cf "$tmp/$name.tar" "$name"
    { printf '\x01'; cat "$tmp/$name.tar"; } >"corpus/chart_archive/$name-tar"
    { printf '\x00'; gzip -c "$tmp/$name.tar"; } >"corpus/chart_archive/$name-tgz"
done

release='{"name":"web","info":{"first_deployed":"2025-01-02T03:04:05.123456789+01:00","last_deployed":"2025-01-02T03:04:05Z","deleted":"","description":"Install complete","status":"deployed","notes":"Thanks"},"chart":{"metadata":{"name":"hello","version":"0.1.0","apiVersion":"v2","appVersion":"1.0","type":"application"},"lock":null,"templates":[{"name":"templates/cm.yaml","data":"a2luZDogQ29uZmlnTWFw"}],"values":{"replicas":1},"schema":null,"files":null},"config":{"replicas":2},"manifest":"---\nkind: ConfigMap\n","hooks":[{"name":"t","kind":"Pod","path":"p","manifest":"m","events":["test"],"last_run":{"started_at":"","completed_at":"","phase":""},"weight":-5}],"version":3,"namespace":"default","apply_method":"csa"}'
{ printf '\x02'; printf '%s' "$release"; } >corpus/stored_release/release-json
{ printf '\x01'; printf '%s' "$release" | gzip -c; } >corpus/stored_release/release-gzip
{ printf '\x00'; printf '%s' "$release" | gzip -c | base64 -w0; } >corpus/stored_release/release-b64
echo "seeded: $(ls corpus/values_yaml | wc -l) values, $(ls corpus/chart_archive | wc -l) archives, $(ls corpus/stored_release | wc -l) releases"
