# operator-rs's base image: the operator-rs binary with the Helm operator runtime as its
# entrypoint. A Helm project with `runtime: operator-rs` builds FROM it and adds watches.yaml
# and its charts (templates/helm/build/Dockerfile-operator-rs.tera), as helm-operator
# projects build FROM the helm-operator image.
#
# Multi-platform, cross-compiled on the build machine's platform, so an arm64 image needs
# no emulation:
#   docker buildx build --platform linux/amd64,linux/arm64 -t IMAGE .
# .github/workflows/release.yaml builds and publishes it for each version tag, under the name
# and tag `operator-rs build` uses (src/image/base_image.rs).

# The compiler's image; Debian 12, whose glibc the runtime stage below has too.
ARG RUST_IMAGE=rust:1.89-bookworm
# glibc's libc, libm, the loader and libgcc_s, which operator-rs links against, and nothing else.
ARG BASE_IMAGE=gcr.io/distroless/cc-debian12:nonroot

FROM --platform=$BUILDPLATFORM ${RUST_IMAGE} AS build
ARG TARGETARCH
# The Rust target and the C cross-compiler for it (ring and mimalloc compile C code).
RUN set -eu; \
    case "${TARGETARCH}" in \
      amd64) target=x86_64-unknown-linux-gnu; gcc=x86_64-linux-gnu-gcc; package=gcc-x86-64-linux-gnu ;; \
      arm64) target=aarch64-unknown-linux-gnu; gcc=aarch64-linux-gnu-gcc; package=gcc-aarch64-linux-gnu ;; \
      *) echo "unsupported TARGETARCH ${TARGETARCH}: build for linux/amd64 or linux/arm64" >&2; exit 1 ;; \
    esac; \
    if ! command -v "${gcc}" >/dev/null; then \
      apt-get update && apt-get install -y --no-install-recommends "${package}" libc6-dev-"${TARGETARCH}"-cross && rm -rf /var/lib/apt/lists/*; \
    fi; \
    rustup target add "${target}"; \
    printf '%s\n%s\n' "${target}" "${gcc}" > /tmp/cross
WORKDIR /src
COPY . .
RUN set -eu; \
    target=$(sed -n 1p /tmp/cross); gcc=$(sed -n 2p /tmp/cross); \
    env_target=$(echo "${target}" | tr 'a-z-' 'A-Z_'); \
    export "CARGO_TARGET_${env_target}_LINKER=${gcc}" "CC_$(echo "${target}" | tr '-' '_')=${gcc}"; \
    cargo build --release --locked --target "${target}" --bin operator-rs; \
    cp "target/${target}/release/operator-rs" /operator-rs

FROM ${BASE_IMAGE}
ARG VERSION=dev
ARG REVISION=unknown
ARG SOURCE=unknown
LABEL org.opencontainers.image.title="operator-rs" \
      org.opencontainers.image.description="The operator-rs Helm operator runtime: the base image of Helm operators built with operator-rs" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.source="${SOURCE}"
COPY --from=build /operator-rs /usr/local/bin/operator-rs
# A numeric non-root user (distroless's "nonroot"), so the kubelet can check runAsNonRoot
# without a passwd file in the image.
USER 65532:65532
# Where a project's image puts watches.yaml and helm-charts/, as in the helm-operator's image.
ENV HOME=/opt/helm
WORKDIR /opt/helm
ENTRYPOINT ["/usr/local/bin/operator-rs", "helm-operator-runtime"]
