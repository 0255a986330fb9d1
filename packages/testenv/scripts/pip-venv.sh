# Installs a Python tool from PyPI, pinned with every dependency in a requirements file, into a virtualenv
# in the user's cache dir, keyed by the tool's version. Idempotent: an install made from the same
# requirements is kept, so only the first run on a machine pays. Sourced by provision-moto.sh and
# provision-iam-linters.sh, which set, before calling provision_venv:
#   tool          the name in messages, the lock and the log (moto, iam-linters)
#   version       the version the virtualenv is named after (<cache>/<tool>-<version>)
#   requirements  the pinned requirements file (a pip freeze of a clean install)
#   check         a command line run in the virtualenv's bin/ once installed, e.g. "moto_server --help"
set -euo pipefail

cache="${XDG_CACHE_HOME:-$HOME/.cache}/keymaster/testenv"
started=$SECONDS

say() { printf '[provision-%s %4ss] %s\n' "$tool" "$((SECONDS - started))" "$*"; }
fail() {
  printf 'provision-%s: %s\n' "$tool" "$*" >&2
  exit 1
}

# The tools need Python 3.9 or newer, and the venv module (Debian ships it apart, as python3-venv).
require_python() {
  command -v python3 >/dev/null ||
    fail "python3 is not on PATH: install Python 3.9 or newer (apt-get install -y python3 python3-venv) and run this again"
  python3 -c 'import sys; sys.exit(sys.version_info < (3, 9))' ||
    fail "$(python3 --version 2>&1) is too old: $tool $version needs Python 3.9 or newer"
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

install_venv() {
  say "$tool $version: not provisioned yet; creating a virtualenv in $venv"
  rm -rf "$venv"
  python3 -m venv "$venv" >>"$log" 2>&1 || fail "python3 -m venv $venv failed; see $log"
  local count
  count="$(grep -cE '^[A-Za-z]' "$requirements")"
  say "$tool $version: installing $count pinned packages from PyPI (pip install -r $(basename "$requirements"))"
  if ! with_progress "$venv/bin/pip" install --no-input --disable-pip-version-check --progress-bar off \
    -r "$requirements"; then
    tail -n 30 "$log" >&2
    fail "pip install failed (the last 30 lines of $log are above); check that PyPI is reachable (pip config list, PIP_INDEX_URL) and run this again"
  fi
  # shellcheck disable=SC2086 # $check is a command line
  (cd "$venv/bin" && ./$check) >/dev/null 2>>"$log" || fail "$venv/bin/$check does not run; see $log"
  echo "$wanted" >"$marker"
}

provision_venv() {
  venv="$cache/$tool-$version"
  # The install is complete when this file holds the hash of the requirements it was made from.
  marker="$venv/.keymaster-requirements.sha256"
  log="$cache/$tool-$version.provision.log"
  wanted="$(sha256sum "$requirements" | cut -d' ' -f1)"
  mkdir -p "$cache"
  # Two provisioning runs at once (two terminals, CI jobs) would race on the same virtualenv.
  exec 9>"$cache/.provision-$tool.lock"
  flock -n 9 || {
    say "another provisioning run holds $cache/.provision-$tool.lock; waiting for it"
    flock 9
  }
  if [[ "$(cat "$marker" 2>/dev/null)" == "$wanted" ]]; then
    say "$tool $version: already provisioned ($venv)"
    return
  fi
  : >"$log"
  require_python
  install_venv
  say "ready: $tool $version in $venv in $((SECONDS - started)) s"
}
