#!/usr/bin/env bash
# Installs moto in server mode (moto_server), pinned with every dependency in moto-requirements.txt,
# into a virtualenv in the user's cache dir keyed by moto's version. Idempotent: an install made from
# the same requirements is kept, so only the first run on a machine pays (about 40 s with PyPI).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
requirements="$here/moto-requirements.txt"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/keymaster/testenv"
started=$SECONDS

say() { printf '[provision-moto %4ss] %s\n' "$((SECONDS - started))" "$*"; }
fail() {
  printf 'provision-moto: %s\n' "$*" >&2
  exit 1
}

version="$(sed -n 's/^moto\[server\]==\(.*\)$/\1/p' "$requirements")"
[[ -n "$version" ]] || fail "$requirements has no moto[server]==VERSION line"
venv="$cache/moto-$version"
# The install is complete when this file holds the hash of the requirements it was made from.
marker="$venv/.keymaster-requirements.sha256"
log="$cache/moto-$version.provision.log"
wanted="$(sha256sum "$requirements" | cut -d' ' -f1)"

# moto 5.2 needs Python 3.9 or newer, and the venv module (Debian ships it apart, as python3-venv).
require_python() {
  command -v python3 >/dev/null ||
    fail "python3 is not on PATH: install Python 3.9 or newer (apt-get install -y python3 python3-venv) and run this again"
  python3 -c 'import sys; sys.exit(sys.version_info < (3, 9))' ||
    fail "$(python3 --version 2>&1) is too old: moto $version needs Python 3.9 or newer"
  python3 -c 'import ensurepip, venv' 2>/dev/null && return
  local package="python3-venv"
  if [[ $EUID -eq 0 ]] && command -v apt-get >/dev/null; then
    say "python3 has no venv module (Debian ships it apart): apt-get install -y $package"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$package"; } >>"$log" 2>&1 ||
      fail "apt-get install -y $package failed; see $log"
    python3 -c 'import ensurepip, venv' 2>/dev/null && return
  fi
  fail "python3 -m venv cannot work: $(python3 --version 2>&1) at $(command -v python3) has no ensurepip/venv module; install it (on Debian or Ubuntu: sudo apt-get install -y $package) and run this again"
}

# Runs a command, printing the latest package pip is at every 10 s so that a long install visibly progresses.
with_progress() {
  "$@" >>"$log" 2>&1 &
  local pid=$! t=$SECONDS
  while kill -0 "$pid" 2>/dev/null; do
    sleep 1
    if ((SECONDS - t >= 10)) && kill -0 "$pid" 2>/dev/null; then
      say "still installing: $(grep -E '^(Collecting|Downloading|Installing|Building)' "$log" | tail -n 1 | sed 's/ (from .*//' | cut -c1-100)"
      t=$SECONDS
    fi
  done
  wait "$pid"
}

install() {
  say "moto $version: not provisioned yet; creating a virtualenv in $venv"
  rm -rf "$venv"
  python3 -m venv "$venv" >>"$log" 2>&1 || fail "python3 -m venv $venv failed; see $log"
  local count
  count="$(grep -cE '^[A-Za-z]' "$requirements")"
  say "moto $version: installing $count pinned packages from PyPI (pip install -r $(basename "$requirements"))"
  if ! with_progress "$venv/bin/pip" install --no-input --disable-pip-version-check --progress-bar off \
    -r "$requirements"; then
    tail -n 30 "$log" >&2
    fail "pip install failed (the last 30 lines of $log are above); check that PyPI is reachable (pip config list, PIP_INDEX_URL) and run this again"
  fi
  local installed
  installed="$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("moto"))')"
  [[ "$installed" == "$version" ]] || fail "pip installed moto $installed, not $version; see $log"
  "$venv/bin/moto_server" --help >/dev/null 2>>"$log" || fail "$venv/bin/moto_server does not run; see $log"
  echo "$wanted" >"$marker"
}

main() {
  mkdir -p "$cache"
  # Two provisioning runs at once (two terminals, CI jobs) would race on the same virtualenv.
  exec 9>"$cache/.provision-moto.lock"
  flock -n 9 || {
    say "another provisioning run holds $cache/.provision-moto.lock; waiting for it"
    flock 9
  }
  if [[ -x "$venv/bin/moto_server" && "$(cat "$marker" 2>/dev/null)" == "$wanted" ]]; then
    say "moto $version: already provisioned ($venv)"
    return
  fi
  : >"$log"
  require_python
  install
  say "ready: moto $version in $venv ($venv/bin/moto_server) in $((SECONDS - started)) s"
}

main "$@"
