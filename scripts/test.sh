#!/usr/bin/env bash
# Runs every test of operator-rs, after installing what the tests need:
#   Debian packages (docker-registry, podman, buildah, busybox-static, hyperfine, kubectl),
#   Python tools in .venv (kubernetes-validate, checkov), and cargo's own dependencies.
# Usage: scripts/test.sh [extra cargo test arguments]
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup-test-tools.sh

# A test run builds once from clean: incremental caches would only double the target directory.
export CARGO_INCREMENTAL=0

echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings
echo "== cargo test"
cargo test --workspace --locked "$@"
