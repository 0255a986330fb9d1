# Sourced by the scripts that build with Go (provision-kube.sh, provision-clusterctl.sh,
# scripts/install-helm.sh) or fetch Go modules (provision-capa.sh); each defines `say` first: long
# steps made visible, noisy ones quiet, one run at a time.

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

# Runs a command with its output in a log, shown (its end) only when it fails: `go get` lists every module.
quietly() {
  local log="$1"
  shift
  "$@" >"$log" 2>&1 || {
    tail -n 30 "$log" >&2
    return 1
  }
}

# Holds DIR/.provision.lock (creating DIR) until the script exits, waiting while another run holds it:
# two runs at once (two terminals, CI jobs) would race on the same folder.
hold_lock() {
  mkdir -p "$1"
  exec 9>"$1/.provision.lock"
  flock -n 9 || {
    say "another run holds $1/.provision.lock; waiting for it"
    flock 9
  }
}
