#!/usr/bin/env bash
# Builds the real control plane the tests run on: kube-apiserver and etcd, with `go build` from
# their pinned Go modules, into the user's cache dir keyed by version. Idempotent: a binary already
# built is kept, so only the first run on a machine pays (several minutes for kube-apiserver).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../kube-versions.env
source "$here/../kube-versions.env"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/keymaster/testenv"
kube_bin="$cache/kube-apiserver/v$KUBE_VERSION/kube-apiserver"
etcd_bin="$cache/etcd/v$ETCD_VERSION/etcd"
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

# Builds the main package $pkg of module $module@$version into $out, from a scratch module whose
# go.mod gets the replace lines in $replaces (one `old => new version` per line).
build() {
  local name="$1" module="$2" version="$3" pkg="$4" out="$5" ldflags="$6" replaces="${7:-}"
  local work
  work="$(mktemp -d "$cache/build-kube-$name.XXXXXX")"
  (
    cd "$work"
    go mod init "keymaster.local/testenv/$name" >/dev/null 2>&1
    while IFS= read -r line; do
      [[ -n "$line" ]] && go mod edit -replace "${line// => /=}"
    done <<<"$replaces"
    say "$name: downloading $module@$version and its dependencies (Go module proxy)"
    with_progress "downloading $name's modules" go get "$pkg@$version"
    say "$name: building $pkg (go build -p 2 -trimpath)"
    with_progress "building $name" go build -p 2 -trimpath -ldflags "-s -w $ldflags" -o "$work/$name" "$pkg"
    mkdir -p "$(dirname "$out")"
    mv "$work/$name" "$out"
  )
  rm -rf "$work"
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

provision_kube_apiserver() {
  if [[ -x "$kube_bin" ]]; then
    say "kube-apiserver v$KUBE_VERSION: already built ($kube_bin)"
    return
  fi
  local t=$SECONDS ldflags=""
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $p.gitVersion=v$KUBE_VERSION -X $p.gitMajor=${KUBE_VERSION%%.*}"
    ldflags+=" -X $p.gitMinor=$(cut -d. -f2 <<<"$KUBE_VERSION") -X $p.gitTreeState=clean"
  done
  say "kube-apiserver v$KUBE_VERSION: not built yet; building it (10 to 16 minutes on 2 cores, the first time only)"
  local replaces
  replaces="$(kube_staging_replaces)"
  build kube-apiserver k8s.io/kubernetes "v$KUBE_VERSION" k8s.io/kubernetes/cmd/kube-apiserver \
    "$kube_bin" "$ldflags" "$replaces"
  say "kube-apiserver v$KUBE_VERSION: built in $((SECONDS - t)) s ($kube_bin)"
}

provision_etcd() {
  if [[ -x "$etcd_bin" ]]; then
    say "etcd v$ETCD_VERSION: already built ($etcd_bin)"
    return
  fi
  local t=$SECONDS
  say "etcd v$ETCD_VERSION: not built yet; building it (about 2 minutes the first time)"
  build etcd go.etcd.io/etcd/server/v3 "v$ETCD_VERSION" go.etcd.io/etcd/server/v3 "$etcd_bin" ""
  say "etcd v$ETCD_VERSION: built in $((SECONDS - t)) s ($etcd_bin)"
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
  if [[ ! -x "$kube_bin" || ! -x "$etcd_bin" ]]; then require_go; fi
  export GOTOOLCHAIN=local GOFLAGS=-mod=mod
  provision_kube_apiserver
  provision_etcd
  say "ready: kube-apiserver v$KUBE_VERSION and etcd v$ETCD_VERSION in $cache"
}

main "$@"
