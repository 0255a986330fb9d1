#!/usr/bin/env bash
# Builds the real control plane the tests run on: kube-apiserver, kube-controller-manager and etcd,
# with `go build` from their pinned Go modules, into the user's cache dir keyed by version.
# Idempotent: a binary already built is kept, so only the first run on a machine pays (minutes).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../kube-versions.env
source "$here/../kube-versions.env"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/keymaster/testenv"
started=$SECONDS

say() { printf '[provision-kube %4ss] %s\n' "$((SECONDS - started))" "$*"; }
fail() {
  printf 'provision-kube: %s\n' "$*" >&2
  exit 1
}

require_go() {
  command -v go >/dev/null ||
    fail "go is not on PATH: install Go 1.24 or newer (https://go.dev/dl/, or apt-get install golang-go on a Debian with Go >= 1.24) and run this again"
  local v
  v="$(go env GOVERSION)"
  [[ "$v" =~ ^go1\.([0-9]+) ]] || fail "cannot read the Go version ('$v' from go env GOVERSION)"
  ((BASH_REMATCH[1] >= 24)) ||
    fail "$v is too old: kube-apiserver $KUBE_VERSION needs Go 1.24 or newer (https://go.dev/dl/)"
}

# Runs a command, printing a line every 30 s so that a long build visibly progresses.
with_progress() {
  local label="$1"
  shift
  "$@" &
  local pid=$! t=$SECONDS
  while kill -0 "$pid" 2>/dev/null; do
    sleep 5
    if ((SECONDS - t >= 30)) && kill -0 "$pid" 2>/dev/null; then
      say "still $label..."
      t=$SECONDS
    fi
  done
  wait "$pid"
}

# Where a binary lives: one folder per name and version (src/kube/binaries.ts reads the same).
bin_path() { echo "$cache/$1/v$2/$1"; }

# build LABEL VERSION LDFLAGS REPLACES NAME=PACKAGE...: from one scratch module whose go.mod gets
# REPLACES (`old => new@version` lines), builds each main PACKAGE at vVERSION into bin_path NAME VERSION.
build() {
  local label="$1" version="$2" ldflags="$3" replaces="$4"
  shift 4
  local work target
  work="$(mktemp -d "$cache/build-kube-$label.XXXXXX")"
  (
    cd "$work"
    go mod init "keymaster.local/testenv/$label" >/dev/null 2>&1
    while IFS= read -r line; do
      [[ -n "$line" ]] && go mod edit -replace "${line// => /=}"
    done <<<"$replaces"
    local packages=("${@#*=}")
    say "$label: downloading v$version and its dependencies from the Go module proxy"
    with_progress "downloading $label's modules" go get "${packages[@]/%/@v$version}"
    for target in "$@"; do
      local name="${target%%=*}" package="${target#*=}" out
      out="$(bin_path "$name" "$version")"
      say "$name: building $package (go build -p 2 -trimpath)"
      with_progress "building $name" go build -p 2 -trimpath -ldflags "-s -w $ldflags" -o "$work/$name" "$package"
      mkdir -p "$(dirname "$out")"
      mv "$work/$name" "$out"
    done
  )
  rm -rf "$work"
}

# Of NAME=PACKAGE targets at VERSION, those not built yet (the others are said to be there).
missing() {
  local version="$1" target path
  shift
  for target in "$@"; do
    path="$(bin_path "${target%%=*}" "$version")"
    if [[ -x "$path" ]]; then say "${target%%=*} v$version: already built ($path)" >&2; else echo "$target"; fi
  done
}

# k8s.io/kubernetes replaces its staging modules (k8s.io/api, k8s.io/apiserver, ...) with local paths,
# which do not apply to a module that requires it: replace each with its published v0.MINOR.PATCH.
kube_staging_replaces() {
  local gomod
  gomod="$(go mod download -json "k8s.io/kubernetes@v$KUBE_VERSION" | sed -n 's/^\s*"GoMod": "\(.*\)",\?$/\1/p')"
  [[ -f "$gomod" ]] || fail "could not download k8s.io/kubernetes@v$KUBE_VERSION's go.mod from the Go module proxy ($(go env GOPROXY))"
  sed -n 's#^\s*\(k8s\.io/[a-z0-9-]*\) => \./staging/.*#\1#p' "$gomod" |
    while read -r m; do echo "$m => $m@v0.${KUBE_VERSION#1.}"; done
}

provision_kube() {
  local targets t=$SECONDS ldflags="" replaces
  mapfile -t targets < <(missing "$KUBE_VERSION" \
    kube-apiserver=k8s.io/kubernetes/cmd/kube-apiserver \
    kube-controller-manager=k8s.io/kubernetes/cmd/kube-controller-manager)
  ((${#targets[@]} > 0)) || return 0
  require_go
  # What `kubectl version` and /version show, as Kubernetes' own build sets it.
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $p.gitVersion=v$KUBE_VERSION -X $p.gitMajor=${KUBE_VERSION%%.*}"
    ldflags+=" -X $p.gitMinor=$(cut -d. -f2 <<<"$KUBE_VERSION") -X $p.gitTreeState=clean"
  done
  say "building ${targets[*]%%=*} v$KUBE_VERSION: the first time only: about 15 CPU-minutes, 10 to 15 minutes on 2 idle cores"
  replaces="$(kube_staging_replaces)"
  build kubernetes "$KUBE_VERSION" "$ldflags" "$replaces" "${targets[@]}"
  say "kubernetes v$KUBE_VERSION: built in $((SECONDS - t)) s"
}

provision_etcd() {
  local targets t=$SECONDS
  mapfile -t targets < <(missing "$ETCD_VERSION" etcd=go.etcd.io/etcd/server/v3)
  ((${#targets[@]} > 0)) || return 0
  require_go
  say "building etcd v$ETCD_VERSION: the first time only, about 2 minutes"
  build etcd "$ETCD_VERSION" "" "" "${targets[@]}"
  say "etcd v$ETCD_VERSION: built in $((SECONDS - t)) s"
}

main() {
  mkdir -p "$cache"
  # Two provisioning runs at once (two terminals, CI jobs) would race on the same cache.
  exec 9>"$cache/.provision-kube.lock"
  flock -n 9 || {
    say "another provisioning run holds $cache/.provision-kube.lock; waiting for it"
    flock 9
  }
  # Scratch modules: what an interrupted run left behind, and ours if a build fails.
  rm -rf "$cache"/build-kube-*
  trap 'rm -rf "$cache"/build-kube-*' EXIT
  export GOTOOLCHAIN=local GOFLAGS=-mod=mod
  provision_kube
  provision_etcd
  say "ready: kube-apiserver and kube-controller-manager v$KUBE_VERSION, etcd v$ETCD_VERSION in $cache"
}

main "$@"
