#!/usr/bin/env bash
# Builds the pinned helm (scripts/helm-version.env) with `go install` from the Go module proxy into
# the user's cache dir: ${XDG_CACHE_HOME:-~/.cache}/keymaster/tools/helm-VERSION/helm. Idempotent: a
# binary that reports the pinned version is kept, so only the first run on a machine pays (minutes).
#   bash scripts/install-helm.sh          build it if needed, then print its path on the last line
#   bash scripts/install-helm.sh --path   only print where it goes (built or not)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=helm-version.env
source "$here/helm-version.env"
module="helm.sh/helm/v3"
dir="${XDG_CACHE_HOME:-$HOME/.cache}/keymaster/tools/helm-$HELM_VERSION"
binary="$dir/helm"
started=$SECONDS

say() { printf '[install-helm %4ss] %s\n' "$((SECONDS - started))" "$*" >&2; }
fail() {
  printf 'install-helm: %s\n' "$*" >&2
  exit 1
}

if [[ "${1:-}" == "--path" ]]; then
  echo "$binary"
  exit 0
fi
[[ $# -eq 0 ]] || fail "unknown argument '$1': run it with no argument (build) or with --path (print where helm goes)"

# shellcheck source=../packages/testenv/scripts/build-steps.sh
source "$here/../packages/testenv/scripts/build-steps.sh"

built() { [[ -x "$binary" ]] && [[ "$("$binary" version --template '{{.Version}}' 2>/dev/null)" == "v$HELM_VERSION" ]]; }

require_go() {
  command -v go >/dev/null ||
    fail "go is not on PATH: install Go (https://go.dev/dl/, or apt-get install golang-go on a Debian with a recent enough Go) and run this again"
}

# The Go version helm's go.mod asks for (its `go` line), against the one on PATH.
require_go_for() {
  local gomod="$1" wanted have
  wanted="$(sed -n 's/^go \([0-9]*\.[0-9]*\).*/\1/p' "$gomod")"
  have="$(go env GOVERSION)"
  [[ "$have" =~ ^go1\.([0-9]+) ]] || fail "cannot read the Go version ('$have' from go env GOVERSION)"
  ((BASH_REMATCH[1] >= ${wanted#*.})) || fail "$have is too old: helm v$HELM_VERSION needs Go $wanted or newer (https://go.dev/dl/)"
}

main() {
  if built; then
    say "helm v$HELM_VERSION: already built ($binary)"
    echo "$binary"
    return
  fi
  require_go
  mkdir -p "$dir"
  # Two runs at once (two terminals, CI jobs) would race on the same folder.
  exec 9>"$dir/.install.lock"
  flock -n 9 || {
    say "another run holds $dir/.install.lock; waiting for it"
    flock 9
  }
  if built; then
    say "helm v$HELM_VERSION: built by the other run ($binary)"
    echo "$binary"
    return
  fi
  # What an interrupted run left behind, and ours when this one fails.
  rm -rf "$dir"/build.*
  trap 'rm -rf "$dir"/build.*' EXIT
  export GOTOOLCHAIN=local CGO_ENABLED=0
  say "helm v$HELM_VERSION: downloading $module and its dependencies from the Go module proxy ($(go env GOPROXY))"
  local gomod
  gomod="$(with_progress "downloading $module@v$HELM_VERSION" go mod download -json "$module@v$HELM_VERSION" |
    sed -n 's/^\s*"GoMod": "\(.*\)",\?$/\1/p')" || true
  [[ -f "$gomod" ]] || fail "could not download $module@v$HELM_VERSION from the Go module proxy ($(go env GOPROXY)): check the network, or GOPROXY"
  require_go_for "$gomod"
  # The ldflags of helm's Makefile: its version, and the Kubernetes version its client-go speaks
  # (v0.36.x is Kubernetes 1.36), which `helm template` and `helm lint` assume without a cluster.
  local client_go major minor ldflags
  client_go="$(sed -n 's#^\s*k8s\.io/client-go v0\.\([0-9]*\)\..*#\1#p' "$gomod")"
  [[ -n "$client_go" ]] || fail "$gomod requires no k8s.io/client-go: cannot tell which Kubernetes version helm v$HELM_VERSION speaks"
  major=1 minor="$client_go"
  ldflags="-s -w -X $module/internal/version.version=v$HELM_VERSION -X $module/internal/version.gitTreeState=clean"
  for p in pkg/lint/rules pkg/chartutil; do
    ldflags+=" -X $module/$p.k8sVersionMajor=$major -X $module/$p.k8sVersionMinor=$minor"
  done
  local work
  work="$(mktemp -d "$dir/build.XXXXXX")"
  say "helm v$HELM_VERSION: building $module/cmd/helm (go install -p 2 -trimpath): the first time only, several minutes on 2 cores"
  GOBIN="$work" with_progress "building helm" go install -p 2 -trimpath -ldflags "$ldflags" "$module/cmd/helm@v$HELM_VERSION" ||
    fail "go install $module/cmd/helm@v$HELM_VERSION failed (its output is above)"
  mv "$work/helm" "$binary"
  built || fail "$binary was built but does not report v$HELM_VERSION: '$("$binary" version --template '{{.Version}}' 2>&1)'"
  say "helm v$HELM_VERSION: built in $((SECONDS - started)) s ($binary)"
  echo "$binary"
}

main "$@"
