#!/usr/bin/env bash
# A throwaway MariaDB (Debian 12's mariadb-server, 10.11) on loopback, for the integration tests
# of the MariaDB target. TLS with a certificate from the run's throwaway CA (tls.sh): the user
# `sluice` connects without TLS, the user `sluice_tls` only with it (REQUIRE SSL).
#
#   mariadb.sh start          mariadb-install-db + mariadbd (or reuse a running server); waits
#                             until it answers a query
#   mariadb.sh stop           TERM by pid (KILL after 30 s) and delete the data
#   mariadb.sh halt           TERM by pid, keeping the data, the port and the run-dir files: an
#                             outage (clients see 2013 / 2006, then connection refused)
#   mariadb.sh resume         start the halted server again on the same port (a no-op when it runs)
#   mariadb.sh sql ARGS...    the `mariadb` client against `replica` as `sluice`
#   mariadb.sh status         prints the DSN (password masked) and exits 0 when the server
#                             answers (1 otherwise)
#
# Files in $SLUICE_RUN_DIR (default <repo>/build/run):
#   mariadb.dsn         mariadb://sluice:PASSWORD@127.0.0.1:PORT/replica  (no TLS; ALL PRIVILEGES
#                       ON *.* WITH GRANT OPTION)
#   mariadb.secure.dsn  mariadb://sluice_tls:PASSWORD@127.0.0.1:PORT/replica?ssl-mode=
#                       VERIFY_IDENTITY&ssl-ca=<run dir>/tls/ca.crt (the same privileges; the
#                       server refuses it without TLS)
#   mariadb.password    the password of both users (hex, no trailing newline), fresh on each start
#   mariadb.client.cnf  a [client] option file for `mariadb --defaults-file=` (user, password,
#                       host, port, database) of `sluice`
#   tls/                the run's CA and the server's certificate (tls.sh)
#   mariadb.pid         mariadbd's pid (stop and halt signal it, never a process name)
#   mariadb.base        the folder holding mariadb/ (data), mariadb-sock/ (unix socket) and
#                       mariadb.log (the server's error log); the run dir itself unless the
#                       server's user cannot reach it (then /tmp/...)
#   mariadb.halted      present while the server is halted (mariadb.pid is gone meanwhile)
#
# mariadbd refuses to run as root without --user: as root the data belongs to the system user
# `sluicemdb` (created if absent) and mariadbd, started by root, switches to it (--user). The
# administrative connection is root's unix_socket login through the socket (the OS user must
# match: as another user, that user's own account, which mariadb-install-db makes).
# Settings: no option files (--no-defaults), 127.0.0.1 only, skip-name-resolve, utf8mb4,
# time zone UTC, innodb_buffer_pool_size=128M, local_infile=ON, max_allowed_packet=64M,
# innodb_flush_log_at_trx_commit=2 (we kill processes, never the OS: a commit in the OS cache
# survives kill -9, the semantics under test stay exact).
#
# Environment: SLUICE_RUN_DIR, SLUICE_MDB_USER (default sluicemdb, used only as root),
# SLUICE_MDB_START_TIMEOUT (default 60), SLUICE_MDB_EXTRA_ARGS (mariadbd options appended, for
# profiling runs; word-split).
set -euo pipefail

SERVICE_NAME=mariadb.sh
# shellcheck source=integration/services/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

RUN_DIR="$(sluice_run_dir)"
PID_FILE="$RUN_DIR/mariadb.pid"
DSN_FILE="$RUN_DIR/mariadb.dsn"
SECURE_DSN_FILE="$RUN_DIR/mariadb.secure.dsn"
PASSWORD_FILE="$RUN_DIR/mariadb.password"
CLIENT_CNF="$RUN_DIR/mariadb.client.cnf"
BASE_FILE="$RUN_DIR/mariadb.base"
HALTED_FILE="$RUN_DIR/mariadb.halted"
START_TIMEOUT="${SLUICE_MDB_START_TIMEOUT:-60}"
DATABASE=replica
USER_NAME=sluice
SECURE_USER=sluice_tls
TLS="$SLUICE_REPO/integration/services/tls.sh"
MARIADBD=/usr/sbin/mariadbd

if [[ $EUID -eq 0 ]]; then
  MDB_USER="${SLUICE_MDB_USER:-sluicemdb}"
  ADMIN=root
else
  MDB_USER="$(id -un)"
  ADMIN="$MDB_USER"
fi

ensure_user() {
  [[ $EUID -eq 0 ]] || return 0
  if ! id -u "$MDB_USER" >/dev/null 2>&1; then
    log "creating the system user $MDB_USER"
    useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin \
      --user-group "$MDB_USER" 2>/dev/null \
      || id -u "$MDB_USER" >/dev/null 2>&1 \
      || die "useradd $MDB_USER failed"
  fi
}

# choose_base: the folder for data, socket and log. The run dir when the server's user can
# reach it and the socket path fits in sun_path (107 bytes); else a private folder in /tmp.
choose_base() {
  local base="$RUN_DIR"
  if [[ $EUID -eq 0 ]]; then
    chmod o+x "$RUN_DIR" 2>/dev/null || true
    if ! runuser -u "$MDB_USER" -- test -x "$RUN_DIR"; then
      base=""
    fi
  fi
  # <base>/mariadb-sock/mariadb.sock must fit in 107 bytes.
  if [[ -n "$base" && ${#base} -gt 80 ]]; then
    base=""
  fi
  if [[ -z "$base" ]]; then
    base="$(mktemp -d /tmp/sluice-mdb.XXXXXX)"
    chmod 755 "$base"
    log "run dir not reachable by $MDB_USER or too long for a socket path; using $base"
  fi
  echo "$base"
}

# mdb_dirs BASE: sets DATA, SOCK_DIR, SOCK, TMP_DIR and MDBLOG. TMP_DIR: the server's own
# temporary directory — servers sharing /tmp (every run dir's, the benchmark's) were seen to
# crash on each other's internal temporary tables (information_schema queries).
mdb_dirs() {
  DATA="$1/mariadb"
  TMP_DIR="$1/mariadb-tmp"
  SOCK_DIR="$1/mariadb-sock"
  SOCK="$SOCK_DIR/mariadb.sock"
  MDBLOG="$1/mariadb.log"
}

running_dsn() {
  [[ -f "$PID_FILE" && -f "$DSN_FILE" ]] || return 1
  pid_alive "$(cat "$PID_FILE")" mariadbd || return 1
  cat "$DSN_FILE"
}

dsn_port() { sed -E 's#.*:([0-9]+)/.*#\1#' <<<"$1"; }

# admin_sql ARGS...: the client as the administrative account, through the socket.
admin_sql() { mariadb --no-defaults --protocol=socket -S "$SOCK" -u "$ADMIN" "$@"; }

# is_ready: the server answers a query through its socket (mdb_dirs set).
is_ready() { admin_sql -N -B -e 'SELECT 1' >/dev/null 2>&1; }

# launch PORT: starts mariadbd in the background on PORT (mdb_dirs set), appending to the error
# log; writes mariadb.pid and sets SERVER_PID. setsid + every descriptor redirected: the server
# must not hold the caller's pipes open (CTest waits for a test's output pipes to close) nor die
# with the caller's session. $! is mariadbd itself: it switches user in-process (--user).
launch() {
  local port="$1"
  # shellcheck disable=SC2086  # the extra options are meant to be word-split
  setsid "$MARIADBD" --no-defaults --user="$MDB_USER" --datadir="$DATA" \
    --socket="$SOCK" --pid-file="$DATA/mariadbd.pid" --log-error="$MDBLOG" --tmpdir="$TMP_DIR" \
    --bind-address=127.0.0.1 --port="$port" --skip-name-resolve \
    --character-set-server=utf8mb4 --collation-server=utf8mb4_general_ci \
    --default-time-zone=+00:00 --max-connections=200 \
    --innodb-buffer-pool-size=128M --innodb-log-file-size=64M \
    --innodb-flush-log-at-trx-commit=2 \
    --local-infile=ON --max-allowed-packet=64M \
    --ssl-ca="$DATA/ca.crt" --ssl-cert="$DATA/server.crt" --ssl-key="$DATA/server.key" \
    ${SLUICE_MDB_EXTRA_ARGS:-} \
    </dev/null >>"$MDBLOG" 2>&1 9>&- &
  SERVER_PID=$!
  echo "$SERVER_PID" >"$PID_FILE"
}

# wait_ready PORT: until the server answers; returns 2 when it exited on a taken port, dies on
# any other failure.
wait_ready() {
  local port="$1" deadline=$((SECONDS + START_TIMEOUT))
  until is_ready; do
    if ! proc_running "$SERVER_PID"; then
      if grep -q 'Address already in use\|Bind on TCP/IP port' "$MDBLOG"; then
        return 2
      fi
      show_log_tail "$MDBLOG"
      die "mariadbd (pid $SERVER_PID) exited during start-up; log: $MDBLOG"
    fi
    if ((SECONDS >= deadline)); then
      show_log_tail "$MDBLOG"
      stop_pid "$SERVER_PID" 10
      die "mariadbd (pid $SERVER_PID) is not ready on 127.0.0.1:$port after ${START_TIMEOUT}s"
    fi
    sleep 0.2
  done
}

# install_certificate: the server's certificate, the CA and a copy of the key that the server's
# user holds alone, in the data folder.
install_certificate() {
  local tls
  tls="$(SLUICE_RUN_DIR="$RUN_DIR" "$TLS" server mariadb)"
  install -m 644 "$tls/ca.crt" "$DATA/ca.crt"
  install -m 644 "$tls/mariadb.crt" "$DATA/server.crt"
  install -m 600 "$tls/mariadb.key" "$DATA/server.key"
  if [[ $EUID -eq 0 ]]; then
    chown "$MDB_USER:" "$DATA/ca.crt" "$DATA/server.crt" "$DATA/server.key"
  fi
}

# start_once: one attempt on a fresh random port. Returns 2 when the port was taken (retry).
start_once() {
  local base port password rc=0
  base="$(choose_base)"
  echo "$base" >"$BASE_FILE"
  mdb_dirs "$base"
  rm -rf "$DATA" "$SOCK_DIR" "$TMP_DIR"
  mkdir -p "$DATA" "$SOCK_DIR" "$TMP_DIR"
  : >"$MDBLOG"
  if [[ $EUID -eq 0 ]]; then
    chown "$MDB_USER:" "$DATA" "$SOCK_DIR" "$TMP_DIR" "$MDBLOG"
  fi
  chmod 700 "$DATA"

  if ! mariadb-install-db --no-defaults --user="$MDB_USER" --datadir="$DATA" \
    --auth-root-authentication-method=socket --skip-test-db --skip-name-resolve \
    >"$base/mariadb-install-db.log" 2>&1; then
    cat "$base/mariadb-install-db.log" >&2
    die "mariadb-install-db into $DATA failed"
  fi
  install_certificate
  port="$(free_port)"
  launch "$port"
  wait_ready "$port" || rc=$?
  if ((rc == 2)); then
    log "port $port was taken meanwhile; retrying on another port"
    cleanup_files
    return 2
  fi

  # The users and database the tests use. Hex: safe in a DSN and in SQL.
  password="$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')"
  if ! admin_sql >/dev/null <<EOF; then
CREATE DATABASE $DATABASE CHARACTER SET utf8mb4;
CREATE USER '$USER_NAME'@'127.0.0.1' IDENTIFIED BY '$password';
GRANT ALL PRIVILEGES ON *.* TO '$USER_NAME'@'127.0.0.1' WITH GRANT OPTION;
CREATE USER '$SECURE_USER'@'127.0.0.1' IDENTIFIED BY '$password' REQUIRE SSL;
GRANT ALL PRIVILEGES ON *.* TO '$SECURE_USER'@'127.0.0.1' WITH GRANT OPTION;
EOF
    show_log_tail "$MDBLOG"
    cmd_stop_quiet
    die "creating users $USER_NAME, $SECURE_USER and database $DATABASE failed"
  fi
  (umask 077 && printf '%s' "$password" >"$PASSWORD_FILE")
  (umask 077 && printf '[client]\nuser=%s\npassword=%s\nhost=127.0.0.1\nport=%s\ndatabase=%s\n' \
    "$USER_NAME" "$password" "$port" "$DATABASE" >"$CLIENT_CNF")
  (umask 077 && echo "mariadb://$USER_NAME:$password@127.0.0.1:$port/$DATABASE" >"$DSN_FILE")
  (umask 077 && echo "mariadb://$SECURE_USER:$password@127.0.0.1:$port/$DATABASE?ssl-mode=VERIFY_IDENTITY&ssl-ca=$RUN_DIR/tls/ca.crt" \
    >"$SECURE_DSN_FILE")
  # The TLS user logs in over TLS with the server's certificate verified against the run's CA
  # (and, with plain TCP, is refused).
  if ! MYSQL_PWD="$password" mariadb --no-defaults -h 127.0.0.1 -P "$port" -u "$SECURE_USER" \
    --ssl --ssl-ca="$RUN_DIR/tls/ca.crt" --ssl-verify-server-cert -N -B \
    -e "SELECT 1 FROM information_schema.session_status
         WHERE variable_name = 'Ssl_cipher' AND variable_value <> ''" 2>&1 | grep -qx 1; then
    show_log_tail "$MDBLOG"
    cmd_stop_quiet
    die "$SECURE_USER cannot log in over TLS with the server certificate verified"
  fi
  log "MariaDB ready: mariadb://$USER_NAME:***@127.0.0.1:$port/$DATABASE, TLS for" \
    "$SECURE_USER (pid $SERVER_PID, data $DATA, $((SECONDS - started))s)"
}

cleanup_files() {
  local base
  if [[ -f "$BASE_FILE" ]]; then
    base="$(cat "$BASE_FILE")"
    mdb_dirs "$base"
    rm -rf "$DATA" "$SOCK_DIR" "$TMP_DIR" "$base/mariadb-install-db.log"
    if [[ "$base" != "$RUN_DIR" ]]; then
      # Keep the server log next to the other run files for post-mortems.
      [[ -f "$MDBLOG" ]] && cp "$MDBLOG" "$RUN_DIR/mariadb.log"
      [[ "$base" == /tmp/sluice-mdb.* ]] && rm -rf "$base"
    fi
  fi
  rm -f "$PID_FILE" "$DSN_FILE" "$SECURE_DSN_FILE" "$PASSWORD_FILE" "$CLIENT_CNF" \
    "$BASE_FILE" "$HALTED_FILE"
  SLUICE_RUN_DIR="$RUN_DIR" "$TLS" release mariadb
}

# stop_server: TERM mariadbd by its recorded pid (a clean InnoDB shutdown), KILL after 30 s.
stop_server() {
  local pid=""
  [[ -f "$PID_FILE" ]] && pid="$(cat "$PID_FILE")"
  if pid_alive "$pid" mariadbd; then
    log "stopping MariaDB (pid $pid)"
    stop_pid "$pid" 30
  fi
}

cmd_stop_quiet() {
  stop_server
  cleanup_files
}

cmd_start() {
  local dsn rc
  if dsn="$(running_dsn)"; then
    mdb_dirs "$(cat "$BASE_FILE")"
    if is_ready; then
      log "already running: 127.0.0.1:$(dsn_port "$dsn") (pid $(cat "$PID_FILE")); reusing it"
      return 0
    fi
  fi
  cmd_stop_quiet
  [[ -x "$MARIADBD" ]] || die "$MARIADBD not found (install mariadb-server)"
  command -v mariadb-install-db >/dev/null || die "mariadb-install-db not found"
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

# halted_server: sets DATA, SOCK, MDBLOG and PORT for the server of this run dir, or dies when
# there is none (never started, or stopped and deleted).
halted_server() {
  [[ -f "$BASE_FILE" && -f "$DSN_FILE" ]] || die "no server in $RUN_DIR (mariadb.sh start)"
  mdb_dirs "$(cat "$BASE_FILE")"
  [[ -d "$DATA/mysql" ]] || die "no server data in $DATA"
  PORT="$(dsn_port "$(cat "$DSN_FILE")")"
}

cmd_halt() {
  halted_server
  if [[ -f "$HALTED_FILE" && ! -f "$PID_FILE" ]]; then
    log "already halted"
    return 0
  fi
  log "halting MariaDB (port $PORT); data kept"
  stop_server
  rm -f "$PID_FILE"
  date -u +%FT%TZ >"$HALTED_FILE"
  log "halted (mariadb.sh resume starts it again on 127.0.0.1:$PORT)"
}

cmd_resume() {
  local rc=0
  if running_dsn >/dev/null; then
    mdb_dirs "$(cat "$BASE_FILE")"
    if is_ready; then
      log "already running (pid $(cat "$PID_FILE"))"
      rm -f "$HALTED_FILE"
      return 0
    fi
  fi
  halted_server
  log "resuming MariaDB on 127.0.0.1:$PORT (data $DATA)"
  launch "$PORT"
  wait_ready "$PORT" || rc=$?
  ((rc == 0)) || die "port $PORT was taken while MariaDB was halted; log: $MDBLOG"
  rm -f "$HALTED_FILE"
  log "MariaDB resumed on 127.0.0.1:$PORT (pid $SERVER_PID)"
}

cmd_sql() {
  if ! running_dsn >/dev/null; then
    [[ -f "$HALTED_FILE" ]] && die "MariaDB is halted (mariadb.sh resume); run dir $RUN_DIR"
    die "no MariaDB running (mariadb.sh start); run dir $RUN_DIR"
  fi
  exec mariadb --defaults-file="$CLIENT_CNF" "$@"
}

cmd_status() {
  local dsn
  dsn="$(running_dsn)" || {
    if [[ -f "$HALTED_FILE" ]]; then
      log "halted since $(cat "$HALTED_FILE") (mariadb.sh resume)"
    else
      log "not running"
    fi
    return 1
  }
  mdb_dirs "$(cat "$BASE_FILE")"
  is_ready || {
    log "pid $(cat "$PID_FILE") alive but not answering"
    return 1
  }
  # The password stays in mariadb.dsn (mode 600): status output lands in CI logs.
  sed -E 's#(//[^:]*:)[^@]*@#\1***@#' <<<"$dsn"
}

case "${1:-}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  sql)
    shift
    cmd_sql "$@"
    ;;
  status) cmd_status ;;
  halt) cmd_halt ;;
  resume) cmd_resume ;;
  *)
    echo "usage: $0 start|stop|halt|resume|status|sql [mariadb client args...]" >&2
    exit 2
    ;;
esac
