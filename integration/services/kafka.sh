#!/usr/bin/env bash
# A real single-node Apache Kafka 3.9 broker (KRaft, combined broker + controller) on loopback,
# for the integration tests and the demo. Two client listeners: PLAINTEXT, and SASL_SSL (TLS with
# a certificate from the run's throwaway CA, tls.sh, and SASL/SCRAM-SHA-512 for one user made at
# format time) for the tests of secured connections.
#
#   kafka.sh start                      start (or reuse a running) broker; waits until it serves
#   kafka.sh stop                       stop it (TERM, KILL after 20 s) and delete its data
#   kafka.sh halt                       stop it (TERM, KILL after 20 s), keeping its data, config
#                                       and ports: an outage
#   kafka.sh resume                     start the halted broker again (same data, same ports);
#                                       waits until it serves (a no-op when it is running)
#   kafka.sh topic NAME PARTITIONS [TopicCommand options...]
#                                       create a topic (idempotent), wait until it has leaders
#   kafka.sh status                     exit 0 when the broker answers metadata requests
#                                       (1 when halted)
#
# Files in $SLUICE_RUN_DIR (default <repo>/build/run):
#   kafka.bootstrap   host:port of the PLAINTEXT listener (what clients use)
#   kafka.secure.bootstrap  host:port of the SASL_SSL listener (security.protocol=SASL_SSL,
#                     sasl.mechanism=SCRAM-SHA-512, ssl.ca.location=tls/ca.crt; the certificate
#                     names 127.0.0.1 and localhost)
#   kafka.secure.user       the SCRAM user's name
#   kafka.secure.password   its password (no trailing newline), fresh on each start
#   tls/              the run's CA and the broker's certificate (tls.sh)
#   kafka.pid         the broker JVM's pid
#   kafka.dir         the broker's temporary folder (config, KRaft metadata, logs)
#   kafka.log         the broker's own log (kept after stop, for post-mortems)
#   kafka.halted      present while the broker is halted (kafka.pid is gone meanwhile;
#                     kafka.bootstrap and kafka.dir stay)
#
# Environment: SLUICE_RUN_DIR, SLUICE_KAFKA_LIB (jars; default integration/kafka/lib, fetched by
# integration/kafka/fetch.sh when missing), SLUICE_KAFKA_HEAP (default "-Xmx512m -Xms256m"),
# SLUICE_KAFKA_START_TIMEOUT (seconds, default 60), JAVA (default java).
set -euo pipefail

SERVICE_NAME=kafka.sh
# shellcheck source=integration/services/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

RUN_DIR="$(sluice_run_dir)"
LIB="${SLUICE_KAFKA_LIB:-$SLUICE_REPO/integration/kafka/lib}"
JAVA="${JAVA:-java}"
PID_FILE="$RUN_DIR/kafka.pid"
BOOTSTRAP_FILE="$RUN_DIR/kafka.bootstrap"
DIR_FILE="$RUN_DIR/kafka.dir"
LOG_FILE="$RUN_DIR/kafka.log"
HALTED_FILE="$RUN_DIR/kafka.halted"
SECURE_BOOTSTRAP_FILE="$RUN_DIR/kafka.secure.bootstrap"
SECURE_USER_FILE="$RUN_DIR/kafka.secure.user"
SECURE_PASSWORD_FILE="$RUN_DIR/kafka.secure.password"
SCRAM_USER=sluice
TLS="$SLUICE_REPO/integration/services/tls.sh"
START_TIMEOUT="${SLUICE_KAFKA_START_TIMEOUT:-60}"
MAIN_CLASS=kafka.Kafka

ensure_jars() {
  # A no-op (a hash comparison) when lib/ already holds the jars of the current pom.xml.
  SLUICE_KAFKA_LIB="$LIB" "$SLUICE_REPO/integration/kafka/fetch.sh"
  ls "$LIB"/kafka_2.13-*.jar >/dev/null 2>&1 || die "no Kafka jars in $LIB"
  command -v "$JAVA" >/dev/null || die "'$JAVA' not found (install openjdk-17-jre-headless)"
}

# Runs a Kafka tool class (StorageTool, TopicCommand...) with the broker's class path.
kafka_tool() {
  local class="$1"
  shift
  "$JAVA" -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
    -Dlog4j.configuration="file:$TOOLS_LOG4J" -cp "$LIB/*" "$class" "$@"
}

write_tools_log4j() {
  TOOLS_LOG4J="$RUN_DIR/kafka-tools-log4j.properties"
  cat >"$TOOLS_LOG4J" <<'EOF'
log4j.rootLogger=WARN, stderr
log4j.appender.stderr=org.apache.log4j.ConsoleAppender
log4j.appender.stderr.Target=System.err
log4j.appender.stderr.layout=org.apache.log4j.PatternLayout
log4j.appender.stderr.layout.ConversionPattern=[%d] %p %m (%c)%n
EOF
}

# metadata_ok BOOTSTRAP: the broker answers a metadata request (kcat -L) and lists itself.
metadata_ok() {
  local bootstrap="$1" out
  out="$(kcat -L -b "$bootstrap" -m 3 -X topic.metadata.refresh.interval.ms=-1 2>/dev/null)" \
    || return 1
  grep -q '1 brokers:' <<<"$out"
}

# secure_metadata_ok BOOTSTRAP: the SASL_SSL listener answers a metadata request, the client
# verifying the certificate (127.0.0.1) against the run's CA and logging in with SCRAM.
secure_metadata_ok() {
  local bootstrap="$1" out
  out="$(kcat -L -b "$bootstrap" -m 5 -X security.protocol=SASL_SSL \
    -X sasl.mechanism=SCRAM-SHA-512 -X "sasl.username=$(cat "$SECURE_USER_FILE")" \
    -X "sasl.password=$(cat "$SECURE_PASSWORD_FILE")" -X "ssl.ca.location=$RUN_DIR/tls/ca.crt" \
    2>&1)" || {
    echo "$out" >&2
    return 1
  }
  grep -q '1 brokers:' <<<"$out"
}

# topic_leaders BOOTSTRAP TOPIC: prints how many partitions of TOPIC have a leader (0: none).
topic_leaders() {
  local bootstrap="$1" topic="$2"
  kcat -L -b "$bootstrap" -t "$topic" -m 3 2>/dev/null \
    | grep -c '^ *partition [0-9]*, leader [0-9]' || true
}

# warm_group_coordinator BOOTSTRAP: has the broker make __consumer_offsets now. A new broker
# makes it on the first group's FindCoordinator and answers COORDINATOR_NOT_AVAILABLE meanwhile,
# which librdkafka asks again only a second later: every test's and benchmark's first consumer
# group would pay that second, which a running cluster never charges (an end-to-end run of a
# million events took 9.9 s, 1.0 s of it before the group's first assignment). Describing a
# group asks for its coordinator; the admin client waits for it.
warm_group_coordinator() {
  local bootstrap="$1" i
  ensure_jars
  write_tools_log4j
  kafka_tool org.apache.kafka.tools.consumer.group.ConsumerGroupCommand \
    --bootstrap-server "$bootstrap" --describe --group sluice-coordinator-warmup \
    >/dev/null 2>&1 || true
  for ((i = 0; i < 50; i++)); do
    (($(topic_leaders "$bootstrap" __consumer_offsets) > 0)) && return 0
    sleep 0.2
  done
  log "warning: __consumer_offsets has no leader yet; the first consumer group may wait a second"
}

running_bootstrap() {
  [[ -f "$PID_FILE" && -f "$BOOTSTRAP_FILE" ]] || return 1
  pid_alive "$(cat "$PID_FILE")" "$MAIN_CLASS" || return 1
  cat "$BOOTSTRAP_FILE"
}

# A Kafka cluster id is a base64url (no padding) encoding of 16 random bytes (22 characters),
# generated here rather than by `StorageTool random-uuid` to save a JVM start.
# One starting with '-' would read as an option to kafka-storage (its argument parser): drawn again.
random_cluster_id() {
  local id
  while :; do
    id="$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')"
    [[ "$id" != -* ]] && break
  done
  printf '%s' "$id"
}

write_config() {
  local dir="$1" port="$2" cport="$3" sport="$4" tls="$5"
  cat >"$dir/server.properties" <<EOF
# Generated by integration/services/kafka.sh: a throwaway single-node KRaft broker for tests.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$cport
listeners=PLAINTEXT://127.0.0.1:$port,SASL_SSL://127.0.0.1:$sport,CONTROLLER://127.0.0.1:$cport
advertised.listeners=PLAINTEXT://127.0.0.1:$port,SASL_SSL://127.0.0.1:$sport
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SASL_SSL:SASL_SSL,CONTROLLER:PLAINTEXT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
log.dirs=$dir/data

# The secured listener: TLS (a PEM key store: key and certificate from tls.sh) and SCRAM-SHA-512
# (the user is created by StorageTool format --add-scram; no authorizer, so it may do anything).
listener.name.sasl_ssl.ssl.keystore.type=PEM
listener.name.sasl_ssl.ssl.keystore.location=$tls/kafka.pem
listener.name.sasl_ssl.sasl.enabled.mechanisms=SCRAM-SHA-512
listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;

# One replica of everything.
num.partitions=1
default.replication.factor=1
min.insync.replicas=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=10
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=4
auto.create.topics.enable=false
delete.topic.enable=true

# Fast consumer groups, so that kill and rebalance tests fit CI's time.
group.initial.rebalance.delay.ms=0
group.min.session.timeout.ms=1000
group.max.session.timeout.ms=300000

# Small machine (2 cores).
num.network.threads=2
num.io.threads=4
num.recovery.threads.per.data.dir=1
log.cleaner.threads=1
log.cleaner.dedupe.buffer.size=16777216
EOF
  cat >"$dir/log4j.properties" <<'EOF'
log4j.rootLogger=INFO, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka.request.logger=WARN
log4j.logger.state.change.logger=WARN
log4j.logger.kafka.log.LogCleaner=WARN
log4j.logger.org.apache.kafka.storage.internals.log=WARN
log4j.logger.kafka.log=WARN
EOF
}

# launch_broker DIR: starts the broker configured in DIR in the background, appending to
# kafka.log; writes kafka.pid and sets BROKER_PID (no subshell: the broker is our child).
launch_broker() {
  local dir="$1"
  # setsid + all descriptors redirected: the broker must not hold the caller's pipes open
  # (CTest waits for a test's output pipes to close) nor die with the caller's session.
  # shellcheck disable=SC2086  # the heap options are meant to be word-split
  setsid "$JAVA" ${SLUICE_KAFKA_HEAP:--Xmx512m -Xms256m} \
    -server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:+ExitOnOutOfMemoryError \
    -XX:ErrorFile="$RUN_DIR/kafka-hs_err_%p.log" \
    -Djava.awt.headless=true -Dlog4j.configuration="file:$dir/log4j.properties" \
    -Dkafka.logs.dir="$dir" \
    -cp "$LIB/*" "$MAIN_CLASS" "$dir/server.properties" \
    </dev/null >>"$LOG_FILE" 2>&1 9>&- &
  BROKER_PID=$!
  echo "$BROKER_PID" >"$PID_FILE"
}

# start_once: one attempt on fresh random ports. Returns 2 when the ports were taken (retry).
start_once() {
  local port cport sport dir cid pid deadline tls password
  port="$(free_port)"
  cport="$(free_port "$port")"
  sport="$(free_port "$port" "$cport")"
  dir="$(mktemp -d "$RUN_DIR/kafka.XXXXXX")"
  echo "$dir" >"$DIR_FILE"
  tls="$(SLUICE_RUN_DIR="$RUN_DIR" "$TLS" server kafka)"
  write_config "$dir" "$port" "$cport" "$sport" "$tls"
  cid="$(random_cluster_id)"
  # Hex: safe in a properties file, a DSN or a command line.
  password="$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')"
  printf '%s' "$SCRAM_USER" >"$SECURE_USER_FILE"
  (umask 077 && printf '%s' "$password" >"$SECURE_PASSWORD_FILE")

  if ! kafka_tool kafka.tools.StorageTool format -t "$cid" -c "$dir/server.properties" \
    --add-scram "SCRAM-SHA-512=[name=$SCRAM_USER,password=$password]" \
    >"$dir/format.log" 2>&1; then
    cat "$dir/format.log" >&2
    die "formatting the KRaft storage in $dir failed"
  fi

  : >"$LOG_FILE"
  launch_broker "$dir"
  pid=$BROKER_PID
  echo "127.0.0.1:$port" >"$BOOTSTRAP_FILE"
  echo "127.0.0.1:$sport" >"$SECURE_BOOTSTRAP_FILE"

  deadline=$((SECONDS + START_TIMEOUT))
  while ((SECONDS < deadline)); do
    if ! kill -0 "$pid" 2>/dev/null; then
      if grep -q 'Address already in use' "$LOG_FILE"; then
        log "port $port or $cport was taken meanwhile; retrying on other ports"
        cleanup_files
        return 2
      fi
      show_log_tail "$LOG_FILE"
      cleanup_files
      die "the broker (pid $pid) exited during start-up; full log: $LOG_FILE"
    fi
    if metadata_ok "127.0.0.1:$port"; then
      if ! secure_metadata_ok "127.0.0.1:$sport"; then
        show_log_tail "$LOG_FILE"
        stop_pid "$pid" 5
        cleanup_files
        die "the SASL_SSL listener 127.0.0.1:$sport does not answer; full log: $LOG_FILE"
      fi
      warm_group_coordinator "127.0.0.1:$port"
      log "broker ready at 127.0.0.1:$port, SASL_SSL at 127.0.0.1:$sport (controller" \
        "127.0.0.1:$cport, pid $pid, $((SECONDS - started))s)"
      return 0
    fi
    sleep 0.5
  done
  show_log_tail "$LOG_FILE"
  stop_pid "$pid" 5
  cleanup_files
  die "the broker (pid $pid) did not answer metadata requests on 127.0.0.1:$port within" \
    "${START_TIMEOUT}s; full log: $LOG_FILE"
}

cleanup_files() {
  if [[ -f "$DIR_FILE" ]]; then
    local dir
    dir="$(cat "$DIR_FILE")"
    # Only ever delete a folder this script created.
    [[ "$dir" == "$RUN_DIR"/kafka.* && -d "$dir" ]] && rm -rf "$dir"
  fi
  rm -f "$PID_FILE" "$BOOTSTRAP_FILE" "$DIR_FILE" "$HALTED_FILE" "$SECURE_BOOTSTRAP_FILE" \
    "$SECURE_USER_FILE" "$SECURE_PASSWORD_FILE"
  SLUICE_RUN_DIR="$RUN_DIR" "$TLS" release kafka
}

cmd_start() {
  local bootstrap rc
  if bootstrap="$(running_bootstrap)" && metadata_ok "$bootstrap"; then
    log "already running at $bootstrap (pid $(cat "$PID_FILE")); reusing it"
    return 0
  fi
  # A stale pid file (crashed broker, killed test run): kill what is left and start afresh.
  cmd_stop_quiet
  command -v kcat >/dev/null || die "kcat not found (run integration/services/install-deps.sh)"
  ensure_jars
  write_tools_log4j
  started=$SECONDS
  for _ in 1 2 3; do
    rc=0
    start_once || rc=$?
    [[ $rc -eq 2 ]] || return "$rc"
  done
  die "could not bind free ports after 3 attempts"
}

cmd_stop_quiet() {
  local pid
  if [[ -f "$PID_FILE" ]]; then
    pid="$(cat "$PID_FILE")"
    if pid_alive "$pid" "$MAIN_CLASS"; then
      log "stopping the broker (pid $pid)"
      stop_pid "$pid" 20
    fi
  fi
  cleanup_files
}

cmd_stop() {
  if [[ ! -f "$PID_FILE" && ! -f "$DIR_FILE" ]]; then
    log "not running"
    return 0
  fi
  cmd_stop_quiet
  log "stopped"
}

# halted_broker: sets DIR and BOOTSTRAP for the broker of this run dir, or dies when there is
# none (never started, or stopped and deleted).
halted_broker() {
  [[ -f "$DIR_FILE" && -f "$BOOTSTRAP_FILE" ]] || die "no broker in $RUN_DIR (kafka.sh start)"
  DIR="$(cat "$DIR_FILE")"
  BOOTSTRAP="$(cat "$BOOTSTRAP_FILE")"
  [[ -f "$DIR/server.properties" ]] || die "no broker config in $DIR"
}

cmd_halt() {
  local pid
  halted_broker
  if [[ -f "$PID_FILE" ]] && pid="$(cat "$PID_FILE")" && pid_alive "$pid" "$MAIN_CLASS"; then
    log "halting the broker (pid $pid, $BOOTSTRAP); data kept"
    stop_pid "$pid" 20
  elif [[ -f "$HALTED_FILE" ]]; then
    log "already halted"
    return 0
  fi
  rm -f "$PID_FILE"
  date -u +%FT%TZ >"$HALTED_FILE"
  log "halted (kafka.sh resume starts it again at $BOOTSTRAP)"
}

cmd_resume() {
  local pid deadline started=$SECONDS
  if BOOTSTRAP="$(running_bootstrap)" && metadata_ok "$BOOTSTRAP"; then
    log "already running at $BOOTSTRAP (pid $(cat "$PID_FILE"))"
    rm -f "$HALTED_FILE"
    return 0
  fi
  halted_broker
  ensure_jars
  log "resuming the broker at $BOOTSTRAP (data $DIR)"
  echo "----- kafka.sh resume $(date -u +%FT%TZ) -----" >>"$LOG_FILE"
  launch_broker "$DIR"
  pid=$BROKER_PID
  deadline=$((SECONDS + START_TIMEOUT))
  while ((SECONDS < deadline)); do
    if ! kill -0 "$pid" 2>/dev/null; then
      show_log_tail "$LOG_FILE"
      rm -f "$PID_FILE"
      die "the broker (pid $pid) exited while resuming (port taken?); full log: $LOG_FILE"
    fi
    if metadata_ok "$BOOTSTRAP"; then
      rm -f "$HALTED_FILE"
      log "broker resumed at $BOOTSTRAP (pid $pid, $((SECONDS - started))s)"
      return 0
    fi
    sleep 0.5
  done
  show_log_tail "$LOG_FILE"
  die "the resumed broker (pid $pid) did not answer metadata requests at $BOOTSTRAP within" \
    "${START_TIMEOUT}s; full log: $LOG_FILE"
}

cmd_topic() {
  [[ $# -ge 2 ]] || die "usage: kafka.sh topic NAME PARTITIONS [TopicCommand options...]"
  local name="$1" partitions="$2" bootstrap i have
  shift 2
  [[ "$partitions" =~ ^[1-9][0-9]*$ ]] || die "PARTITIONS must be a positive number"
  bootstrap="$(running_bootstrap)" || die "no broker running (kafka.sh start); run dir $RUN_DIR"
  have="$(topic_leaders "$bootstrap" "$name")"
  if ((have == 0)); then
    ensure_jars
    write_tools_log4j
    kafka_tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$bootstrap" \
      --create --if-not-exists --topic "$name" --partitions "$partitions" \
      --replication-factor 1 "$@" >&2
  fi
  # Wait until every partition has a leader, so producers and consumers can start at once.
  for ((i = 0; i < 100; i++)); do
    have="$(topic_leaders "$bootstrap" "$name")"
    if ((have >= partitions)); then
      ((have == partitions)) \
        || log "warning: topic $name already exists with $have partitions (asked: $partitions)"
      log "topic $name ready ($have partitions)"
      return 0
    fi
    sleep 0.2
  done
  die "topic $name has $have partition leaders after 20s (asked: $partitions)"
}

cmd_status() {
  local bootstrap
  bootstrap="$(running_bootstrap)" || {
    if [[ -f "$HALTED_FILE" ]]; then
      log "halted since $(cat "$HALTED_FILE") (kafka.sh resume)"
    else
      log "not running"
    fi
    return 1
  }
  metadata_ok "$bootstrap" || {
    log "pid $(cat "$PID_FILE") alive but $bootstrap does not answer"
    return 1
  }
  echo "$bootstrap"
}

case "${1:-}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  topic)
    shift
    cmd_topic "$@"
    ;;
  status) cmd_status ;;
  halt) cmd_halt ;;
  resume) cmd_resume ;;
  *)
    echo "usage: $0 start|stop|halt|resume|status|topic NAME PARTITIONS [options]" >&2
    exit 2
    ;;
esac
