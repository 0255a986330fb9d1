#!/usr/bin/env bash
# Builds the manager of the pinned Cluster API Provider AWS (capa.env), the binary CAPA's image runs,
# with `go build` from its Go module, into the user's cache dir keyed by version. Only the side-by-side
# suite (`pnpm --filter @keymaster/e2e test:capa-manager`) needs it: about 7 minutes on 2 cores the
# first time, then never again. Idempotent.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../capa.env
source "$here/../capa.env"
module="sigs.k8s.io/cluster-api-provider-aws/v2"
# The layout src/capa/manager.ts reads.
dir="${XDG_CACHE_HOME:-$HOME/.cache}/keymaster/testenv/capa-manager/v$CAPA_VERSION"
binary="$dir/manager"
started=$SECONDS

say() { printf '[provision-capa-manager %4ss] %s\n' "$((SECONDS - started))" "$*"; }
fail() {
  printf 'provision-capa-manager: %s\n' "$*" >&2
  exit 1
}

# shellcheck source=build-steps.sh
source "$here/build-steps.sh"

build() {
  command -v go >/dev/null ||
    fail "go is not on PATH: install Go (https://go.dev/dl/, or apt-get install golang-go) and run this again"
  local work
  work="$(mktemp -d "$dir/build.XXXXXX")"
  cd "$work"
  go mod init keymaster.local/testenv/capa-manager >/dev/null 2>&1
  say "CAPA v$CAPA_VERSION: downloading $module and its dependencies from the Go module proxy ($(go env GOPROXY))"
  with_progress "downloading $module" quietly "$work/go-get.log" go get "$module@v$CAPA_VERSION" ||
    fail "could not download $module@v$CAPA_VERSION from the Go module proxy: check the network, or GOPROXY"
  say "CAPA v$CAPA_VERSION: building its manager (go build -p 2 -trimpath): the first time only, about 7 minutes on 2 cores"
  with_progress "building CAPA's manager" go build -p 2 -trimpath -ldflags "-s -w" -o "$work/manager" "$module" ||
    fail "go build $module failed (its output is above)"
  mv "$work/manager" "$binary"
}

main() {
  if [[ -x "$binary" ]]; then
    say "CAPA v$CAPA_VERSION's manager: already there ($binary)"
    return
  fi
  hold_lock "$dir"
  [[ -x "$binary" ]] && return
  rm -rf "$dir"/build.*
  trap 'rm -rf "$dir"/build.*' EXIT
  export GOTOOLCHAIN=local GOFLAGS=-mod=mod CGO_ENABLED=0
  build
  say "CAPA v$CAPA_VERSION's manager: ready in $((SECONDS - started)) s ($binary)"
}

main "$@"
