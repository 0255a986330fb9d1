#!/usr/bin/env bash
# Builds the pinned clusterctl (cluster-api.env) with `go build` from the Go module proxy, and copies
# the CRDs of the same release that a management cluster holds (Cluster API's core CRDs and
# clusterctl's inventory), into the user's cache dir keyed by version. Idempotent: what is there is
# kept, so only the first run on a machine pays (a few minutes).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../cluster-api.env
source "$here/../cluster-api.env"
module="sigs.k8s.io/cluster-api"
# The layout src/clusterctl/installation.ts reads.
dir="${XDG_CACHE_HOME:-$HOME/.cache}/keymaster/testenv/clusterctl/v$CLUSTER_API_VERSION"
binary="$dir/clusterctl"
crds="$dir/crds"
started=$SECONDS

say() { printf '[provision-clusterctl %4ss] %s\n' "$((SECONDS - started))" "$*"; }
fail() {
  printf 'provision-clusterctl: %s\n' "$*" >&2
  exit 1
}

# shellcheck source=build-steps.sh
source "$here/build-steps.sh"

# Complete: the binary and the CRDs, which are written last.
provisioned() { [[ -x "$binary" && -f "$crds/.complete" ]]; }

build() {
  command -v go >/dev/null ||
    fail "go is not on PATH: install Go (https://go.dev/dl/, or apt-get install golang-go on a Debian with a recent enough Go) and run this again"
  local work
  work="$(mktemp -d "$dir/build.XXXXXX")"
  cd "$work"
  go mod init keymaster.local/testenv/clusterctl >/dev/null 2>&1
  say "clusterctl v$CLUSTER_API_VERSION: downloading $module and its dependencies from the Go module proxy ($(go env GOPROXY))"
  # The module replaces its API module with ./api, which does not apply here (and makes `go install`
  # refuse it): require that module at the same version instead.
  with_progress "downloading $module" quietly "$work/go-get.log" go get "$module/cmd/clusterctl@v$CLUSTER_API_VERSION" "$module/api@v$CLUSTER_API_VERSION" ||
    fail "could not download $module@v$CLUSTER_API_VERSION from the Go module proxy: check the network, or GOPROXY"
  local source gomod wanted have
  source="$(go list -m -f '{{.Dir}}' "$module")"
  gomod="$source/go.mod"
  wanted="$(sed -n 's/^go \([0-9]*\.[0-9]*\).*/\1/p' "$gomod")"
  have="$(go env GOVERSION)"
  [[ "$have" =~ ^go1\.([0-9]+) ]] || fail "cannot read the Go version ('$have' from go env GOVERSION)"
  ((BASH_REMATCH[1] >= ${wanted#*.})) || fail "$have is too old: clusterctl v$CLUSTER_API_VERSION needs Go $wanted or newer (https://go.dev/dl/)"
  # What `clusterctl version` shows, as the release's own build (hack/scripts/release/version.sh) sets it.
  local ldflags="-s -w" key value
  for key in gitVersion=v$CLUSTER_API_VERSION gitMajor=${CLUSTER_API_VERSION%%.*} gitMinor=$(cut -d. -f2 <<<"$CLUSTER_API_VERSION") gitTreeState=clean; do
    value="${key#*=}"
    ldflags+=" -X $module/version.${key%%=*}=$value"
  done
  say "clusterctl v$CLUSTER_API_VERSION: building $module/cmd/clusterctl (go build -p 2 -trimpath): the first time only, a few minutes on 2 cores"
  with_progress "building clusterctl" go build -p 2 -trimpath -ldflags "$ldflags" -o "$work/clusterctl" "$module/cmd/clusterctl" ||
    fail "go build $module/cmd/clusterctl failed (its output is above)"
  # The CRDs of a management cluster where `clusterctl init` ran: Cluster API's core, and the inventory
  # (Provider; its folder's Metadata describes a provider's repository, and is never installed).
  mkdir -p "$work/crds"
  cp "$source"/core/config/crd/bases/*.yaml "$source"/cmd/clusterctl/config/crd/bases/*_providers.yaml "$work/crds/"
  chmod 0644 "$work"/crds/*.yaml
  touch "$work/crds/.complete"
  rm -rf "$crds"
  mv "$work/clusterctl" "$binary"
  mv "$work/crds" "$crds"
}

main() {
  if provisioned; then
    say "clusterctl v$CLUSTER_API_VERSION: already there ($dir)"
    return
  fi
  hold_lock "$dir"
  provisioned && return
  # What an interrupted run left behind, and ours when this one fails.
  rm -rf "$dir"/build.*
  trap 'rm -rf "$dir"/build.*' EXIT
  export GOTOOLCHAIN=local GOFLAGS=-mod=mod CGO_ENABLED=0
  build
  say "clusterctl v$CLUSTER_API_VERSION: ready in $((SECONDS - started)) s ($binary, CRDs in $crds)"
}

main "$@"
