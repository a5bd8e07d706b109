#!/usr/bin/env bash
# A throwaway PostgreSQL 15 cluster on loopback, for the integration tests and the demo. ssl=on
# with a certificate from the run's throwaway CA (tls.sh): the role `sluice` connects without TLS
# (trust, sslmode=disable in its DSN), the role `sluice_tls` only with TLS and a password.
#
#   postgres.sh start          initdb + start (or reuse a running cluster); waits for pg_isready
#   postgres.sh stop           pg_ctl stop -m fast (KILL as a fallback) and delete the cluster
#   postgres.sh halt           pg_ctl stop -m fast, keeping the cluster, its port and the run-dir
#                              files: an outage (clients see 57P01, then connection refused)
#   postgres.sh resume         start the halted cluster again on the same port; waits for
#                              pg_isready (a no-op when it is running)
#   postgres.sh psql ARGS...   psql against the `replica` database as `sluice`
#   postgres.sh status         exit 0 when the cluster accepts connections (1 when halted)
#
# Files in $SLUICE_RUN_DIR (default <repo>/build/run):
#   postgres.dsn      postgresql://sluice@127.0.0.1:PORT/replica?sslmode=disable  (trust auth, no
#                     password, no TLS)
#   postgres.secure.dsn       postgresql://sluice_tls@127.0.0.1:PORT/replica?sslmode=verify-full&
#                     sslrootcert=<run dir>/tls/ca.crt: a superuser that must log in over TLS with
#                     its password (scram-sha-256); the DSN holds no password
#   postgres.secure.password  that password (no trailing newline), fresh on each start
#   tls/              the run's CA and the server's certificate (tls.sh)
#   postgres.pid      the postmaster's pid
#   postgres.base     the folder holding pg/ (data), pg-sock/ (unix socket) and postgres.log;
#                     the run dir itself unless the server's user cannot reach it (then /tmp/...)
#   postgres.halted   present while the cluster is halted (postgres.pid is gone meanwhile;
#                     postgres.dsn and postgres.base stay)
#
# PostgreSQL refuses to run as root, so as root the cluster belongs to the system user
# `sluicepg` (created if absent) and every server command runs through `runuser -u sluicepg --`.
# Settings: fsync=off (we kill processes, never the OS, so crash recovery is still exact),
# synchronous_commit stays on (commit semantics are what the tests check), max_connections=200,
# shared_buffers=256MB.
#
# Environment: SLUICE_RUN_DIR, SLUICE_PG_BIN (default /usr/lib/postgresql/15/bin),
# SLUICE_PG_USER (default sluicepg, used only as root), SLUICE_PG_START_TIMEOUT (default 60),
# SLUICE_PG_EXTRA_CONF (postgresql.conf lines appended, for profiling runs).
set -euo pipefail

SERVICE_NAME=postgres.sh
# shellcheck source=integration/services/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

RUN_DIR="$(sluice_run_dir)"
PG_BIN="${SLUICE_PG_BIN:-/usr/lib/postgresql/15/bin}"
PID_FILE="$RUN_DIR/postgres.pid"
DSN_FILE="$RUN_DIR/postgres.dsn"
BASE_FILE="$RUN_DIR/postgres.base"
HALTED_FILE="$RUN_DIR/postgres.halted"
START_TIMEOUT="${SLUICE_PG_START_TIMEOUT:-60}"
SECURE_DSN_FILE="$RUN_DIR/postgres.secure.dsn"
SECURE_PASSWORD_FILE="$RUN_DIR/postgres.secure.password"
DATABASE=replica
ROLE=sluice
SECURE_ROLE=sluice_tls
TLS="$SLUICE_REPO/integration/services/tls.sh"

if [[ $EUID -eq 0 ]]; then
  PG_USER="${SLUICE_PG_USER:-sluicepg}"
else
  PG_USER="$(id -un)"
fi

# as_pg CMD...: runs a command as the cluster's owner.
as_pg() {
  if [[ $EUID -eq 0 ]]; then
    runuser -u "$PG_USER" -- "$@"
  else
    "$@"
  fi
}

ensure_user() {
  [[ $EUID -eq 0 ]] || return 0
  if ! id -u "$PG_USER" >/dev/null 2>&1; then
    log "creating the system user $PG_USER"
    useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin \
      --user-group "$PG_USER" 2>/dev/null \
      || id -u "$PG_USER" >/dev/null 2>&1 \
      || die "useradd $PG_USER failed"
  fi
}

# choose_base: the folder for data, socket and log. The run dir when the server's user can
# reach it and the socket path fits in sun_path (107 bytes); else a private folder in /tmp.
choose_base() {
  local base="$RUN_DIR"
  if [[ $EUID -eq 0 ]]; then
    chmod o+x "$RUN_DIR" 2>/dev/null || true
    if ! runuser -u "$PG_USER" -- test -x "$RUN_DIR"; then
      base=""
    fi
  fi
  # <base>/pg-sock/.s.PGSQL.NNNNN.lock must fit in 107 bytes.
  if [[ -n "$base" && ${#base} -gt 70 ]]; then
    base=""
  fi
  if [[ -z "$base" ]]; then
    base="$(mktemp -d /tmp/sluice-pg.XXXXXX)"
    chmod 755 "$base"
    log "run dir not reachable by $PG_USER or too long for a socket path; using $base"
  fi
  echo "$base"
}

# pg_dirs BASE: sets DATA, SOCK, PGLOG.
pg_dirs() {
  DATA="$1/pg"
  SOCK="$1/pg-sock"
  PGLOG="$1/postgres.log"
}

running_dsn() {
  [[ -f "$PID_FILE" && -f "$DSN_FILE" ]] || return 1
  pid_alive "$(cat "$PID_FILE")" postgres || return 1
  cat "$DSN_FILE"
}

dsn_port() { sed -E 's#.*:([0-9]+)/.*#\1#' <<<"$1"; }

is_ready() {
  local port="$1"
  "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$port" -d postgres -U postgres -t 2
}

write_config() {
  local port="$1"
  cat >>"$DATA/postgresql.conf" <<EOF

# ---- integration/services/postgres.sh: a throwaway cluster for tests ----
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$SOCK'
max_connections = 200
shared_buffers = 256MB
# Processes are killed in the fault tests, never the OS: without fsync, crash recovery after a
# kill -9 is still exact. synchronous_commit stays on: commit semantics are under test.
fsync = off
synchronous_commit = on
# sluice locks every key of a batch (an advisory lock each) when a 32nd of the lock table,
# max_locks_per_transaction x max_connections, holds them: 1024 x 200 / 32 = 6,400 keys.
max_locks_per_transaction = 1024
max_wal_size = 2GB
timezone = 'UTC'
log_timezone = 'UTC'
log_line_prefix = '%m [%p] %q%u@%d '
log_min_messages = warning
# TLS for the clients that ask for it (postgres.secure.dsn); the key is the cluster owner's copy.
ssl = on
ssl_cert_file = 'server.crt'
ssl_key_file = 'server.key'
EOF
  # Extra settings for profiling runs (e.g. pg_stat_statements), one per line.
  if [[ -n "${SLUICE_PG_EXTRA_CONF:-}" ]]; then
    printf '%s\n' "$SLUICE_PG_EXTRA_CONF" >>"$DATA/postgresql.conf"
  fi
  cat >"$DATA/pg_hba.conf" <<EOF
# integration/services/postgres.sh: on the unix socket and 127.0.0.1 only. $SECURE_ROLE only over
# TLS with its password; everyone else trusted.
local      all   all             trust
hostssl    all   $SECURE_ROLE    127.0.0.1/32  scram-sha-256
hostnossl  all   $SECURE_ROLE    127.0.0.1/32  reject
host       all   all             127.0.0.1/32  trust
EOF
}

# install_certificate: the server's certificate and a copy of its key that the cluster's owner
# holds alone (PostgreSQL refuses a key that others can read).
install_certificate() {
  local tls
  tls="$(SLUICE_RUN_DIR="$RUN_DIR" "$TLS" server postgres)"
  install -m 644 "$tls/postgres.crt" "$DATA/server.crt"
  install -m 600 "$tls/postgres.key" "$DATA/server.key"
  if [[ $EUID -eq 0 ]]; then
    chown "$PG_USER:" "$DATA/server.crt" "$DATA/server.key"
  fi
}

# start_once: one attempt on a fresh random port. Returns 2 when the port was taken (retry).
start_once() {
  local base port pid password
  base="$(choose_base)"
  echo "$base" >"$BASE_FILE"
  pg_dirs "$base"
  rm -rf "$DATA" "$SOCK"
  mkdir -p "$DATA" "$SOCK"
  : >"$PGLOG"
  if [[ $EUID -eq 0 ]]; then
    chown "$PG_USER:" "$DATA" "$SOCK" "$PGLOG"
  fi
  chmod 700 "$DATA"

  if ! as_pg "$PG_BIN/initdb" -D "$DATA" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 \
    --no-sync >"$base/initdb.log" 2>&1; then
    cat "$base/initdb.log" >&2
    die "initdb into $DATA failed"
  fi
  port="$(free_port)"
  write_config "$port"
  install_certificate

  if ! as_pg "$PG_BIN/pg_ctl" -D "$DATA" -l "$PGLOG" -w -t "$START_TIMEOUT" start >/dev/null; then
    if grep -q 'could not bind\|Address already in use' "$PGLOG"; then
      log "port $port was taken meanwhile; retrying on another port"
      cleanup_files
      return 2
    fi
    show_log_tail "$PGLOG"
    cleanup_files
    die "pg_ctl start failed; log: $PGLOG"
  fi
  pid="$(head -n 1 "$DATA/postmaster.pid")"
  echo "$pid" >"$PID_FILE"

  local deadline=$((SECONDS + START_TIMEOUT))
  until is_ready "$port"; do
    if ((SECONDS >= deadline)) || ! kill -0 "$pid" 2>/dev/null; then
      show_log_tail "$PGLOG"
      cmd_stop_quiet
      die "PostgreSQL (pid $pid) is not ready on 127.0.0.1:$port after ${START_TIMEOUT}s"
    fi
    sleep 0.2
  done

  # The roles and database the tests and the demo use. Through the socket as the bootstrap
  # superuser (the password on stdin, not on a command line); ON_ERROR_STOP so that a failure
  # here fails the start. Hex: safe in a DSN.
  password="$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')"
  if ! "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$SOCK" -p "$port" -U postgres -d postgres \
    >/dev/null <<EOF; then
CREATE ROLE $ROLE WITH LOGIN SUPERUSER;
CREATE ROLE $SECURE_ROLE WITH LOGIN SUPERUSER PASSWORD '$password';
CREATE DATABASE $DATABASE OWNER $ROLE;
EOF
    show_log_tail "$PGLOG"
    cmd_stop_quiet
    die "creating roles $ROLE, $SECURE_ROLE and database $DATABASE failed"
  fi
  (umask 077 && printf '%s' "$password" >"$SECURE_PASSWORD_FILE")
  echo "postgresql://$SECURE_ROLE@127.0.0.1:$port/$DATABASE?sslmode=verify-full&sslrootcert=$RUN_DIR/tls/ca.crt" \
    >"$SECURE_DSN_FILE"
  # Not over TLS: the other tests and the benchmarks measure sluice, not encryption.
  echo "postgresql://$ROLE@127.0.0.1:$port/$DATABASE?sslmode=disable" >"$DSN_FILE"
  if ! PGPASSWORD="$password" "$PG_BIN/psql" -X -qAt -v ON_ERROR_STOP=1 \
    "$(cat "$SECURE_DSN_FILE")" -c 'SELECT 1' >/dev/null; then
    show_log_tail "$PGLOG"
    cmd_stop_quiet
    die "$SECURE_ROLE cannot log in over TLS (sslmode=verify-full)"
  fi
  log "PostgreSQL ready: $(cat "$DSN_FILE"), TLS: $(cat "$SECURE_DSN_FILE") (pid $pid, data" \
    "$DATA, $((SECONDS - started))s)"
}

cleanup_files() {
  local base
  if [[ -f "$BASE_FILE" ]]; then
    base="$(cat "$BASE_FILE")"
    pg_dirs "$base"
    rm -rf "$DATA" "$SOCK" "$base/initdb.log"
    if [[ "$base" != "$RUN_DIR" ]]; then
      # Keep the server log next to the other run files for post-mortems.
      [[ -f "$PGLOG" ]] && cp "$PGLOG" "$RUN_DIR/postgres.log"
      [[ "$base" == /tmp/sluice-pg.* ]] && rm -rf "$base"
    fi
  fi
  rm -f "$PID_FILE" "$DSN_FILE" "$BASE_FILE" "$HALTED_FILE" "$SECURE_DSN_FILE" \
    "$SECURE_PASSWORD_FILE"
  SLUICE_RUN_DIR="$RUN_DIR" "$TLS" release postgres
}

cmd_stop_quiet() {
  local pid="" base
  [[ -f "$PID_FILE" ]] && pid="$(cat "$PID_FILE")"
  if [[ -f "$BASE_FILE" ]]; then
    base="$(cat "$BASE_FILE")"
    pg_dirs "$base"
    if [[ -f "$DATA/postmaster.pid" ]]; then
      [[ -n "$pid" ]] || pid="$(head -n 1 "$DATA/postmaster.pid")"
      log "stopping PostgreSQL (pid $pid)"
      as_pg "$PG_BIN/pg_ctl" -D "$DATA" -m fast -w -t 20 stop >/dev/null 2>&1 || true
    fi
  fi
  if pid_alive "$pid" postgres; then
    log "pg_ctl stop did not stop pid $pid; killing it"
    stop_pid "$pid" 5
  fi
  # pg_ctl returns once postmaster.pid is gone, a moment before the process has exited.
  wait_gone "$pid" 10
  cleanup_files
}

cmd_start() {
  local dsn rc
  if dsn="$(running_dsn)" && is_ready "$(dsn_port "$dsn")"; then
    log "already running: $dsn (pid $(cat "$PID_FILE")); reusing it"
    return 0
  fi
  cmd_stop_quiet
  [[ -x "$PG_BIN/initdb" ]] || die "$PG_BIN/initdb not found (install postgresql)"
  ensure_user
  started=$SECONDS
  for _ in 1 2 3; do
    rc=0
    start_once || rc=$?
    [[ $rc -eq 2 ]] || return "$rc"
  done
  die "could not bind a free port after 3 attempts"
}

cmd_stop() {
  if [[ ! -f "$PID_FILE" && ! -f "$BASE_FILE" ]]; then
    log "not running"
    return 0
  fi
  cmd_stop_quiet
  log "stopped"
}

# halted_cluster: sets DATA, SOCK, PGLOG and PORT for the cluster of this run dir, or dies when
# there is none (never started, or stopped and deleted).
halted_cluster() {
  [[ -f "$BASE_FILE" && -f "$DSN_FILE" ]] || die "no cluster in $RUN_DIR (postgres.sh start)"
  pg_dirs "$(cat "$BASE_FILE")"
  [[ -f "$DATA/PG_VERSION" ]] || die "no cluster data in $DATA"
  PORT="$(dsn_port "$(cat "$DSN_FILE")")"
}

cmd_halt() {
  local pid=""
  halted_cluster
  [[ -f "$PID_FILE" ]] && pid="$(cat "$PID_FILE")"
  if [[ -f "$DATA/postmaster.pid" ]]; then
    [[ -n "$pid" ]] || pid="$(head -n 1 "$DATA/postmaster.pid")"
    log "halting PostgreSQL (pid $pid, port $PORT); data kept"
    as_pg "$PG_BIN/pg_ctl" -D "$DATA" -m fast -w -t 20 stop >/dev/null \
      || die "pg_ctl stop failed; log: $PGLOG"
  elif [[ -f "$HALTED_FILE" ]]; then
    log "already halted"
    return 0
  fi
  if pid_alive "$pid" postgres; then
    # pg_ctl returns once postmaster.pid is gone, a moment before the process has exited.
    wait_gone "$pid" 10
  fi
  rm -f "$PID_FILE"
  date -u +%FT%TZ >"$HALTED_FILE"
  log "halted (postgres.sh resume starts it again on 127.0.0.1:$PORT)"
}

cmd_resume() {
  local pid deadline dsn
  if dsn="$(running_dsn)" && is_ready "$(dsn_port "$dsn")"; then
    log "already running: $dsn (pid $(cat "$PID_FILE"))"
    rm -f "$HALTED_FILE"
    return 0
  fi
  halted_cluster
  log "resuming PostgreSQL on 127.0.0.1:$PORT (data $DATA)"
  # pg_ctl -l appends: the log keeps the halt and the resume.
  if ! as_pg "$PG_BIN/pg_ctl" -D "$DATA" -l "$PGLOG" -w -t "$START_TIMEOUT" start >/dev/null; then
    show_log_tail "$PGLOG"
    die "pg_ctl start failed (port $PORT taken?); log: $PGLOG"
  fi
  pid="$(head -n 1 "$DATA/postmaster.pid")"
  echo "$pid" >"$PID_FILE"
  deadline=$((SECONDS + START_TIMEOUT))
  until is_ready "$PORT"; do
    if ((SECONDS >= deadline)) || ! kill -0 "$pid" 2>/dev/null; then
      show_log_tail "$PGLOG"
      die "PostgreSQL (pid $pid) is not ready on 127.0.0.1:$PORT after ${START_TIMEOUT}s"
    fi
    sleep 0.2
  done
  rm -f "$HALTED_FILE"
  log "PostgreSQL resumed: $(cat "$DSN_FILE") (pid $pid)"
}

cmd_psql() {
  local dsn
  if ! dsn="$(running_dsn)"; then
    [[ -f "$HALTED_FILE" ]] && die "PostgreSQL is halted (postgres.sh resume); run dir $RUN_DIR"
    die "no PostgreSQL running (postgres.sh start); run dir $RUN_DIR"
  fi
  exec "$PG_BIN/psql" -X "$dsn" "$@"
}

cmd_status() {
  local dsn
  dsn="$(running_dsn)" || {
    if [[ -f "$HALTED_FILE" ]]; then
      log "halted since $(cat "$HALTED_FILE") (postgres.sh resume)"
    else
      log "not running"
    fi
    return 1
  }
  is_ready "$(dsn_port "$dsn")" || {
    log "pid $(cat "$PID_FILE") alive but not accepting connections"
    return 1
  }
  echo "$dsn"
}

case "${1:-}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  psql)
    shift
    cmd_psql "$@"
    ;;
  status) cmd_status ;;
  halt) cmd_halt ;;
  resume) cmd_resume ;;
  *)
    echo "usage: $0 start|stop|halt|resume|status|psql [psql args...]" >&2
    exit 2
    ;;
esac
