#!/usr/bin/env bash
# Seeds the fuzz corpus with every snippet of the Helm comparison corpus
# (tests/gotemplate_corpus/*.tmpl at the repository root), one file per snippet.
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p corpus/parse_execute
awk -v dir=corpus/parse_execute '
    /^### / { if (name != "") close(name); n++; name = sprintf("%s/snippet-%04d", dir, n); printf "" > name; next }
    name != "" { print > name }
' ../../../tests/gotemplate_corpus/*.tmpl
echo "seeded $(ls corpus/parse_execute | wc -l) inputs"
