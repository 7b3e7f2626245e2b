#!/usr/bin/env bash
# Seeds the fuzz corpus with every snippet of the Helm comparison corpus
# (tests/gotemplate_corpus/*.tmpl at the repository root), one file per snippet, and with the
# templates of the shared charts (../shared/charts beside the repository, or $CHARTS).
set -euo pipefail
cd "$(dirname "$0")"
charts=${CHARTS:-../../../../shared/charts}
mkdir -p corpus/parse_execute
awk -v dir=corpus/parse_execute '
    /^### / { if (name != "") close(name); n++; name = sprintf("%s/snippet-%04d", dir, n); printf "" > name; next }
    name != "" { print > name }
' ../../../tests/gotemplate_corpus/*.tmpl
if [ -d "$charts" ]; then
    find "$charts"/*/templates -type f | sort | while read -r file; do
        chart=${file#"$charts"/}
        cp "$file" "corpus/parse_execute/chart-$(printf '%s' "$chart" | tr '/' '_')"
    done
fi
echo "seeded $(ls corpus/parse_execute | wc -l) inputs"
