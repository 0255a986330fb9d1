#!/usr/bin/env bash
# Provisions a recorded release of Keymaster (releases.json at the repository root: version -> commit)
# for the upgrade e2e: the commit's tree, extracted from this clone's history with git archive into the
# user's cache dir keyed by commit, with its dependencies installed by its own pnpm (--frozen-lockfile),
# so that it runs as that release's `keymaster run` from source through its own tsx, its deploy/ (CRDs,
# RBAC, Deployment, Helm chart) beside it. Idempotent: a tree whose install finished is kept.
#   bash packages/testenv/scripts/provision-release.sh [VERSION]   (default: the newest recorded release)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
releases="$root/releases.json"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/keymaster/testenv"
started=$SECONDS

say() { printf '[provision-release %4ss] %s\n' "$((SECONDS - started))" "$*"; }
fail() {
  printf 'provision-release: %s\n' "$*" >&2
  exit 1
}

# `VERSION COMMIT` of the release asked for (src/release/installation.ts reads the same file).
recorded() {
  node -e '
    const [file, wanted] = process.argv.slice(1);
    const releases = Object.entries(JSON.parse(require("fs").readFileSync(file, "utf8")));
    const newest = (a, b) => b[0].split(".").map(Number).reduce((d, n, i) => d || n - a[0].split(".").map(Number)[i], 0);
    const found = wanted ? releases.find(([version]) => version === wanted) : releases.sort(newest)[0];
    if (!found) { console.error(`no release ${wanted || "at all"} in ${file} (recorded: ${releases.map(([v]) => v).join(", ")})`); process.exit(1); }
    console.log(found.join(" "));
  ' "$releases" "${1:-}"
}

# Runs a command with its output in the log, printing a line every 15 s so that a long install visibly progresses.
with_progress() {
  local label="$1"
  shift
  "$@" >>"$log" 2>&1 &
  local pid=$! t=$SECONDS
  while kill -0 "$pid" 2>/dev/null; do
    sleep 1
    if ((SECONDS - t >= 15)) && kill -0 "$pid" 2>/dev/null; then
      say "still $label: $(tail -n 1 "$log" | cut -c1-100)"
      t=$SECONDS
    fi
  done
  wait "$pid"
}

provision() {
  local work pnpm
  git -C "$root" cat-file -e "$commit^{commit}" 2>/dev/null ||
    fail "commit $commit of release $version is not in this clone's history (a shallow clone?): run git fetch --unshallow (or git fetch origin $commit) and run this again"
  work="$(mktemp -d "$cache/releases/.extract-XXXXXX")"
  say "release $version: extracting ${commit:0:7} from this clone's history (git archive) into $dir"
  git -C "$root" archive --format=tar "$commit" | tar -x -C "$work"
  pnpm="$(node -p 'require(process.argv[1]).packageManager' "$work/package.json")"
  [[ "$pnpm" =~ ^pnpm@[0-9.]+$ ]] || fail "release $version's package.json names no pnpm version in packageManager ('$pnpm')"
  say "release $version: installing its dependencies (npx --yes $pnpm install --frozen-lockfile)"
  if ! (cd "$work" && with_progress "installing" npx --yes "$pnpm" install --frozen-lockfile); then
    tail -n 30 "$log" >&2
    fail "$pnpm install failed (the last 30 lines of $log are above); check that the npm registry is reachable and run this again"
  fi
  say "release $version: checking that its keymaster runs from source (keymaster run --help)"
  (cd "$work" && node --conditions=@keymaster/source --import tsx packages/reconciler/src/cli/main.ts run --help) \
    >>"$log" 2>&1 || fail "release $version's keymaster does not run from $work (see $log)"
  rm -rf "$dir"
  mv "$work" "$dir"
  echo "$commit" >"$dir/.keymaster-release"
}

main() {
  local found
  found="$(recorded "${1:-}")" || exit 1
  version="${found% *}"
  commit="${found#* }"
  dir="$cache/releases/$commit"
  log="$cache/releases/$commit.provision.log"
  mkdir -p "$cache/releases"
  # Two provisioning runs at once (two terminals, CI jobs) would race on the same tree.
  exec 9>"$cache/.provision-release.lock"
  flock -n 9 || {
    say "another provisioning run holds $cache/.provision-release.lock; waiting for it"
    flock 9
  }
  # What an interrupted run left behind.
  rm -rf "$cache"/releases/.extract-*
  if [[ "$(cat "$dir/.keymaster-release" 2>/dev/null)" == "$commit" ]]; then
    say "release $version (${commit:0:7}): already provisioned ($dir)"
    return
  fi
  : >"$log"
  provision
  say "ready: release $version (${commit:0:7}) in $dir in $((SECONDS - started)) s"
}

main "$@"
