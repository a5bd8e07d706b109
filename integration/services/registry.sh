#!/usr/bin/env bash
# A real Confluent-compatible Schema Registry on loopback for the integration tests: Apicurio
# Registry 3.0.9 (Quarkus, in-memory storage), whose Confluent API lives at /apis/ccompat/v7.
#
#   registry.sh start    start (or reuse a running) registry; waits until it answers
#   registry.sh stop     stop it (TERM, KILL after 20 s) and forget its port
#   registry.sh halt     stop it, keeping its port: an outage (its in-memory schemas are lost)
#   registry.sh resume   start the halted registry again on the same port; waits until ready
#   registry.sh url      print the Confluent-compatible base URL (exit 1 when not running)
#   registry.sh status   exit 0 when it answers
#
# Files in $SLUICE_RUN_DIR (default <repo>/build/run): registry.pid (the JVM's pid),
# registry.port, registry.url (http://127.0.0.1:PORT/apis/ccompat/v7), registry.halted (while
# halted), registry.log (its log, kept after stop).
#
# Environment: SLUICE_RUN_DIR, SLUICE_REGISTRY_HOME (the unpacked app; default
# integration/registry/app; either way integration/registry/fetch.sh fetches it when missing
# or empty, and a given one that holds another version is refused, never replaced),
# SLUICE_REGISTRY_HEAP (default "-Xmx256m"), SLUICE_REGISTRY_START_TIMEOUT (seconds, default
# 120), JAVA (default java).
set -euo pipefail

SERVICE_NAME=registry.sh
# shellcheck source=integration/services/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

RUN_DIR="$(sluice_run_dir)"
HOME_DIR="${SLUICE_REGISTRY_HOME:-$SLUICE_REPO/integration/registry/app}"
JAVA="${JAVA:-java}"
PID_FILE="$RUN_DIR/registry.pid"
PORT_FILE="$RUN_DIR/registry.port"
URL_FILE="$RUN_DIR/registry.url"
HALTED_FILE="$RUN_DIR/registry.halted"
LOG_FILE="$RUN_DIR/registry.log"
START_TIMEOUT="${SLUICE_REGISTRY_START_TIMEOUT:-120}"
JAR_NAME=apicurio-registry-app-3.0.9-runner.jar
API_PATH=/apis/ccompat/v7

ensure_app() {
  # Also for a SLUICE_REGISTRY_HOME of the caller's: fetch.sh is a no-op when its stamp matches,
  # fills it when empty or missing, and refuses (never deletes) when it holds something else.
  "$SLUICE_REPO/integration/registry/fetch.sh"
  [[ -f "$HOME_DIR/$JAR_NAME" ]] || die "no $JAR_NAME in $HOME_DIR"
  command -v "$JAVA" >/dev/null || die "'$JAVA' not found (install openjdk-17-jre-headless)"
  command -v curl >/dev/null || die "curl not found (run integration/services/install-deps.sh)"
}

answers() {
  curl -sf -m 2 "http://127.0.0.1:$1$API_PATH/subjects" >/dev/null 2>&1
}

running_port() {
  [[ -f "$PID_FILE" && -f "$PORT_FILE" ]] || return 1
  pid_alive "$(cat "$PID_FILE")" "$JAR_NAME" || return 1
  cat "$PORT_FILE"
}

# launch PORT: starts the JVM detached (setsid, every descriptor redirected: CTest waits for
# its tests' pipes to close). C1 only and the serial collector: it starts faster and smaller,
# and a test registry serves a handful of requests.
launch() {
  local port="$1"
  # Quarkus writes nothing to its working directory with in-memory storage; run from RUN_DIR
  # all the same. $! is the JVM itself (setsid does not fork when not a group leader).
  cd "$RUN_DIR"
  # shellcheck disable=SC2086  # the heap options are meant to be word-split
  setsid "$JAVA" ${SLUICE_REGISTRY_HEAP:--Xmx256m} \
    -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:+ExitOnOutOfMemoryError \
    -Dquarkus.http.host=127.0.0.1 -Dquarkus.http.port="$port" \
    -jar "$HOME_DIR/$JAR_NAME" </dev/null >>"$LOG_FILE" 2>&1 9>&- &
  echo $! >"$PID_FILE"
}

# start_on PORT: launches and waits. Returns 2 when the port was taken meanwhile (retry).
start_on() {
  local port="$1" pid started=$SECONDS
  launch "$port"
  pid="$(cat "$PID_FILE")"
  echo "$port" >"$PORT_FILE"
  echo "http://127.0.0.1:$port$API_PATH" >"$URL_FILE"
  while ((SECONDS - started < START_TIMEOUT)); do
    if ! proc_running "$pid"; then
      if grep -q 'Address already in use\|Port.*already bound' "$LOG_FILE"; then
        rm -f "$PID_FILE"
        return 2
      fi
      show_log_tail "$LOG_FILE"
      die "the registry (pid $pid) exited during start-up; full log: $LOG_FILE"
    fi
    if answers "$port"; then
      log "registry ready at http://127.0.0.1:$port$API_PATH (pid $pid, $((SECONDS - started))s," \
        "RSS $(($(ps -o rss= -p "$pid") / 1024)) MiB)"
      return 0
    fi
    sleep 0.3
  done
  show_log_tail "$LOG_FILE"
  stop_pid "$pid" 5
  die "the registry (pid $pid) did not answer on port $port within ${START_TIMEOUT}s"
}

cmd_start() {
  local port rc
  if port="$(running_port)" && answers "$port"; then
    log "already running at $(cat "$URL_FILE") (pid $(cat "$PID_FILE")); reusing it"
    return 0
  fi
  cmd_stop_quiet
  ensure_app
  : >"$LOG_FILE"
  for _ in 1 2 3; do
    rc=0
    start_on "$(free_port)" || rc=$?
    [[ $rc -eq 2 ]] || return "$rc"
    log "the port was taken meanwhile; retrying on another"
  done
  die "could not bind a free port after 3 attempts"
}

stop_running() {
  local pid
  [[ -f "$PID_FILE" ]] || return 0
  pid="$(cat "$PID_FILE")"
  if pid_alive "$pid" "$JAR_NAME"; then
    log "stopping the registry (pid $pid)"
    stop_pid "$pid" 20
  fi
  rm -f "$PID_FILE"
}

cmd_stop_quiet() {
  stop_running
  rm -f "$PORT_FILE" "$URL_FILE" "$HALTED_FILE"
}

cmd_stop() {
  if [[ ! -f "$PID_FILE" && ! -f "$PORT_FILE" ]]; then
    log "not running"
    return 0
  fi
  cmd_stop_quiet
  log "stopped"
}

cmd_halt() {
  [[ -f "$PORT_FILE" ]] || die "no registry in $RUN_DIR (registry.sh start)"
  stop_running
  date -u +%FT%TZ >"$HALTED_FILE"
  log "halted (registry.sh resume starts it again on port $(cat "$PORT_FILE"))"
}

cmd_resume() {
  [[ -f "$PORT_FILE" ]] || die "no registry in $RUN_DIR (registry.sh start)"
  if running_port >/dev/null; then
    return 0
  fi
  ensure_app
  start_on "$(cat "$PORT_FILE")" || die "port $(cat "$PORT_FILE") is taken: cannot resume"
  rm -f "$HALTED_FILE"
}

cmd_url() {
  local port
  port="$(running_port)" || die "no registry running (registry.sh start); run dir $RUN_DIR"
  cat "$URL_FILE"
}

cmd_status() {
  local port
  port="$(running_port)" || {
    log "not running"
    return 1
  }
  answers "$port" || {
    log "pid $(cat "$PID_FILE") alive but port $port does not answer"
    return 1
  }
  cat "$URL_FILE"
}

case "${1:-}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  halt) cmd_halt ;;
  resume) cmd_resume ;;
  url) cmd_url ;;
  status) cmd_status ;;
  *)
    echo "usage: registry.sh start|stop|halt|resume|url|status" >&2
    exit 2
    ;;
esac
