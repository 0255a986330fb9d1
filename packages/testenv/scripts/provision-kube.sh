#!/usr/bin/env bash
# Builds the real control plane the tests run on, for each supported Kubernetes minor of
# kube-versions.txt: kube-apiserver, kube-controller-manager, kubectl and the etcd that release ships,
# with `go build` from their pinned Go modules, into the user's cache dir keyed by version.
# Idempotent: a binary already built is kept, so only the first run on a machine pays (minutes).
#   bash provision-kube.sh            every version of kube-versions.txt
#   bash provision-kube.sh 1.35 ...   those minors only (or whole versions: 1.35.4)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
versions_file="$here/../kube-versions.txt"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/keymaster/testenv"
started=$SECONDS

say() { printf '[provision-kube %4ss] %s\n' "$((SECONDS - started))" "$*"; }
fail() {
  printf 'provision-kube: %s\n' "$*" >&2
  exit 1
}

# The lines "KUBE_VERSION ETCD_VERSION" of kube-versions.txt, comments and blank lines left out.
supported() { sed -e 's/#.*//' -e '/^\s*$/d' "$versions_file" | awk '{ print $1, $2 }'; }

require_go() {
  command -v go >/dev/null ||
    fail "go is not on PATH: install Go (https://go.dev/dl/, or apt-get install golang-go on a Debian with a recent enough Go) and run this again"
}

# The Go version a module's go.mod asks for (its `go` line), against the one on PATH.
require_go_for() {
  local what="$1" gomod="$2" wanted have
  wanted="$(sed -n 's/^go \([0-9]*\.[0-9]*\).*/\1/p' "$gomod")"
  have="$(go env GOVERSION)"
  [[ "$have" =~ ^go1\.([0-9]+) ]] || fail "cannot read the Go version ('$have' from go env GOVERSION)"
  ((BASH_REMATCH[1] >= ${wanted#*.})) || fail "$have is too old: $what needs Go $wanted or newer (https://go.dev/dl/)"
}

# shellcheck source=build-steps.sh
source "$here/build-steps.sh"

# Where a binary lives: one folder per name and version (src/kube/binaries.ts reads the same).
bin_path() { echo "$cache/$1/v$2/$1"; }

# The go.mod of MODULE@vVERSION, downloaded from the Go module proxy.
module_gomod() {
  local gomod
  gomod="$(go mod download -json "$1@v$2" | sed -n 's/^\s*"GoMod": "\(.*\)",\?$/\1/p')" || true
  [[ -f "$gomod" ]] || fail "could not download $1@v$2's go.mod from the Go module proxy ($(go env GOPROXY))"
  echo "$gomod"
}

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
    with_progress "downloading $label's modules" quietly "$work/go-get.log" go get "${packages[@]/%/@v$version}"
    for target in "$@"; do
      local name="${target%%=*}" package="${target#*=}" out
      out="$(bin_path "$name" "$version")"
      say "$name v$version: building $package (go build -p 2 -trimpath)"
      with_progress "building $name v$version" go build -p 2 -trimpath -ldflags "-s -w $ldflags" -o "$work/$name" "$package"
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
  local version="$1" gomod="$2"
  sed -n 's#^\s*\(k8s\.io/[a-z0-9-]*\) => \./staging/.*#\1#p' "$gomod" |
    while read -r m; do echo "$m => $m@v0.${version#1.}"; done
}

# The etcd a Kubernetes release is built and shipped with: its go.mod's go.etcd.io/etcd/client/v3.
shipped_etcd() { sed -n 's#^\s*go\.etcd\.io/etcd/client/v3 v\([0-9.]*\).*#\1#p' "$1"; }

provision_kube() {
  local version="$1" etcd="$2" targets t=$SECONDS ldflags="" replaces gomod
  mapfile -t targets < <(missing "$version" \
    kube-apiserver=k8s.io/kubernetes/cmd/kube-apiserver \
    kube-controller-manager=k8s.io/kubernetes/cmd/kube-controller-manager \
    kubectl=k8s.io/kubernetes/cmd/kubectl)
  ((${#targets[@]} > 0)) || return 0
  require_go
  gomod="$(module_gomod k8s.io/kubernetes "$version")"
  require_go_for "Kubernetes $version" "$gomod"
  [[ "$(shipped_etcd "$gomod")" == "$etcd" ]] ||
    fail "kube-versions.txt pairs Kubernetes $version with etcd $etcd, but that release ships etcd $(shipped_etcd "$gomod"): write that on its line"
  # What `kubectl version` and /version show, as Kubernetes' own build sets it.
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $p.gitVersion=v$version -X $p.gitMajor=${version%%.*}"
    ldflags+=" -X $p.gitMinor=$(cut -d. -f2 <<<"$version") -X $p.gitTreeState=clean"
  done
  say "building ${targets[*]%%=*} v$version: the first time only: about 13 CPU-minutes, 10 to 15 minutes on 2 idle cores"
  replaces="$(kube_staging_replaces "$version" "$gomod")"
  build "kubernetes-$version" "$version" "$ldflags" "$replaces" "${targets[@]}"
  say "kubernetes v$version: built in $((SECONDS - t)) s"
}

provision_etcd() {
  local version="$1" targets t=$SECONDS
  mapfile -t targets < <(missing "$version" etcd=go.etcd.io/etcd/server/v3)
  ((${#targets[@]} > 0)) || return 0
  require_go
  say "building etcd v$version: the first time only, about 2 minutes"
  build "etcd-$version" "$version" "" "" "${targets[@]}"
  say "etcd v$version: built in $((SECONDS - t)) s"
}

# The lines of kube-versions.txt the arguments name (a minor such as 1.35, or a whole version); all without.
chosen() {
  local lines wanted line found
  lines="$(supported)"
  [[ -n "$lines" ]] || fail "$versions_file lists no version"
  (($# > 0)) || {
    echo "$lines"
    return
  }
  for wanted in "$@"; do
    found=""
    while read -r line; do
      [[ "${line%% *}" == "$wanted" || "${line%% *}" == "$wanted".* ]] && found="$line"
    done <<<"$lines"
    [[ -n "$found" ]] || fail "Kubernetes $wanted is not in kube-versions.txt (it has $(cut -d' ' -f1 <<<"$lines" | paste -sd' ')): add its line there first"
    echo "$found"
  done
}

main() {
  local lines kube etcd
  lines="$(chosen "$@")"
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
  while read -r -u 3 kube etcd; do
    provision_kube "$kube" "$etcd"
    provision_etcd "$etcd"
    say "ready: Kubernetes $kube (kube-apiserver, kube-controller-manager, kubectl) and etcd $etcd in $cache"
  done 3<<<"$lines"
}

main "$@"
