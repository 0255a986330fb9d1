#!/usr/bin/env bash
# Copies what tests need of the pinned Cluster API Provider AWS (capa.env) from its Go module, fetched
# with `go mod download` from the Go module proxy (no build): its CRDs with the kustomizations its
# release applies to them (config/crd, config/default), its cluster templates (templates/), and, of
# the pinned Cluster API release (cluster-api.env), the core's CRDs with clusterctl's inventory
# (cluster-api-crds/) and the CRDs of the kubeadm bootstrap and control-plane providers its templates
# use (kubeadm-crds/): everything a management cluster's CRDs need, in seconds, no build. Into the user's cache dir keyed by version;
# idempotent: what is there is kept.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../capa.env
source "$here/../capa.env"
# shellcheck source=../cluster-api.env
source "$here/../cluster-api.env"
module="sigs.k8s.io/cluster-api-provider-aws/v2"
# The layout src/capa/installation.ts reads.
dir="${XDG_CACHE_HOME:-$HOME/.cache}/keymaster/testenv/capa/v$CAPA_VERSION-capi-v$CLUSTER_API_VERSION"
started=$SECONDS

say() { printf '[provision-capa %4ss] %s\n' "$((SECONDS - started))" "$*"; }
fail() {
  printf 'provision-capa: %s\n' "$*" >&2
  exit 1
}

# shellcheck source=build-steps.sh
source "$here/build-steps.sh"

# Complete: the marker is written last.
provisioned() { [[ -f "$dir/.complete" && -d "$dir/cluster-api-crds" ]]; }

# The folder of module@version in Go's module cache, downloaded first if need be.
module_dir() {
  local json
  json="$(cd "$work" && go mod download -json "$1@v$2")" ||
    fail "could not download $1@v$2 from the Go module proxy ($(go env GOPROXY)): check the network, or GOPROXY"
  sed -n 's/^\s*"Dir": "\(.*\)",\?$/\1/p' <<<"$json"
}

copy() {
  command -v go >/dev/null ||
    fail "go is not on PATH: install Go (https://go.dev/dl/, or apt-get install golang-go) and run this again"
  work="$(mktemp -d "$dir/build.XXXXXX")"
  local capa capi
  say "downloading $module@v$CAPA_VERSION and sigs.k8s.io/cluster-api@v$CLUSTER_API_VERSION from the Go module proxy"
  capa="$(module_dir "$module" "$CAPA_VERSION")"
  capi="$(module_dir sigs.k8s.io/cluster-api "$CLUSTER_API_VERSION")"
  [[ -d "$capa/config/crd/bases" && -d "$capi/core/config/crd/bases" && -d "$capi/bootstrap/kubeadm/config/crd/bases" ]] ||
    fail "the downloaded modules lack their CRD folders ($capa, $capi)"
  mkdir -p "$work/config/default" "$work/kubeadm-crds" "$work/cluster-api-crds"
  cp -r "$capa/config/crd" "$work/config/"
  cp "$capa/config/default/kustomization.yaml" "$work/config/default/"
  cp -r "$capa/templates" "$work/"
  cp "$capi"/bootstrap/kubeadm/config/crd/bases/*.yaml "$capi"/controlplane/kubeadm/config/crd/bases/*.yaml "$work/kubeadm-crds/"
  cp "$capi"/core/config/crd/bases/*.yaml "$capi"/cmd/clusterctl/config/crd/bases/*_providers.yaml "$work/cluster-api-crds/"
  # The module cache is read-only; the copies need not be.
  chmod -R u+w "$work"
  touch "$work/.complete"
}

main() {
  if provisioned; then
    say "CAPA v$CAPA_VERSION: already there ($dir)"
    return
  fi
  hold_lock "$dir"
  provisioned && return
  rm -rf "$dir"/build.*
  trap 'rm -rf "$dir"/build.*' EXIT
  export GOTOOLCHAIN=local GOFLAGS=-mod=mod
  copy
  find "$dir" -mindepth 1 -maxdepth 1 ! -name 'build.*' ! -name .provision.lock -exec rm -rf {} +
  mv "$work"/* "$work/.complete" "$dir/"
  say "CAPA v$CAPA_VERSION: ready in $((SECONDS - started)) s ($dir)"
}

main "$@"
