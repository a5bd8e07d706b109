# shellcheck shell=bash
# Shared helpers for kafka.sh and postgres.sh (sourced, not executed).
#
# Every service keeps its state in one run directory:
#   SLUICE_RUN_DIR   (default: <repo>/build/run), created if missing, made absolute.
# A service writes <name>.pid and its address file(s) there on start and removes them on stop.

SLUICE_REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

sluice_run_dir() {
  local dir="${SLUICE_RUN_DIR:-$SLUICE_REPO/build/run}"
  mkdir -p "$dir"
  (cd "$dir" && pwd)
}

log() { echo "$SERVICE_NAME: $*" >&2; }
die() {
  echo "$SERVICE_NAME: error: $*" >&2
  exit 1
}

# port_in_use PORT: true when something listens on 127.0.0.1:PORT (or any address).
port_in_use() {
  local port="$1"
  if command -v ss >/dev/null; then
    [[ -n "$(ss -Htln "sport = :$port" 2>/dev/null)" ]] && return 0
  fi
  # A /dev/tcp probe catches what ss cannot see (other network namespaces aside).
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
  return 1
}

# free_port [EXCLUDED...]: prints a random port in 20000-39999 that nothing listens on and that
# is not one of the excluded ports. Another process may still take it before we bind; callers
# retry their start on a bind failure.
free_port() {
  local port tries=0 excluded
  while ((tries++ < 200)); do
    port=$((20000 + (RANDOM * 32768 + RANDOM) % 20000))
    for excluded in "$@"; do
      [[ "$port" == "$excluded" ]] && continue 2
    done
    port_in_use "$port" || {
      echo "$port"
      return 0
    }
  done
  die "no free port found in 20000-39999"
}

# proc_running PID: the process exists and is not a zombie (an exited process that its parent,
# often pid 1 after a daemon detached, has not reaped yet: it holds no port, file or memory).
proc_running() {
  local pid="$1" state
  kill -0 "$pid" 2>/dev/null || return 1
  state="$(sed -E 's/^[0-9]+ \(.*\) ([A-Za-z]).*/\1/' "/proc/$pid/stat" 2>/dev/null)" || return 1
  [[ "$state" != Z && "$state" != X ]]
}

# pid_alive PID [CMDLINE_PATTERN]: the process exists (and its command line matches).
pid_alive() {
  local pid="$1" pattern="${2:-}"
  [[ -n "$pid" && "$pid" =~ ^[0-9]+$ ]] || return 1
  proc_running "$pid" || return 1
  [[ -z "$pattern" ]] && return 0
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$pattern"
}

# stop_pid PID SECONDS: TERM, wait up to SECONDS, then KILL; returns when the process is gone.
stop_pid() {
  local pid="$1" seconds="$2" i
  kill -TERM "$pid" 2>/dev/null || return 0
  for ((i = 0; i < seconds * 10; i++)); do
    proc_running "$pid" || return 0
    sleep 0.1
  done
  log "pid $pid still running after ${seconds}s, sending KILL"
  kill -KILL "$pid" 2>/dev/null || true
  for ((i = 0; i < 50; i++)); do
    proc_running "$pid" || return 0
    sleep 0.1
  done
  log "pid $pid did not exit after KILL"
}

# wait_gone PID SECONDS: waits until PID no longer exists; KILLs it at the deadline.
wait_gone() {
  local pid="$1" seconds="$2" i
  [[ "$pid" =~ ^[0-9]+$ ]] || return 0
  for ((i = 0; i < seconds * 10; i++)); do
    proc_running "$pid" || return 0
    sleep 0.1
  done
  log "pid $pid still there after ${seconds}s, sending KILL"
  kill -KILL "$pid" 2>/dev/null || true
}

# show_log_tail FILE [LINES]: prints the end of a log to stderr, framed.
show_log_tail() {
  local file="$1" lines="${2:-60}"
  [[ -f "$file" ]] || return 0
  echo "----- last $lines lines of $file -----" >&2
  tail -n "$lines" "$file" >&2
  echo "----- end of $file -----" >&2
}
