#!/usr/bin/env bash
# Connect REST API parity (issue 29): sluice's answers to the calls a Connect operator makes,
# parsed by Kafka Connect's own REST entity classes and compared key by key, status codes
# included, with a real Connect 4.1 worker's answers to the same calls (rest_check/, RestCheck).
#
# One topic of one partition takes the Debezium change events of tests/fixtures/debezium's
# uuid_pk table. Debezium's JDBC sink consumes it on the worker (fixture `connect`, group
# connect-<name>), `sluice run` consumes it too (its own group and tables, its Connect API on
# metrics.listen, writes behind http.auth.token); once both have committed every message,
# RestCheck plays the session (reads, pause, resume, stop, offsets PATCH and DELETE, restarts)
# on both sides. The worker's connector, sluice, its config and both tables are removed at the
# end; sluice's log is kept when the test fails.
#
#   rest_parity_test.sh                 the worker against sluice ($SLUICE_BINARY)
#   rest_parity_test.sh --worker-only   the worker against a second connector on the same worker:
#                                       proves the checker's calls, waits and comparisons on two
#                                       answers that must be alike (no sluice needed)
#
# Environment (set by ctest, see integration/CMakeLists.txt): SLUICE_RUN_DIR (kafka.bootstrap,
# postgres.dsn, connect.url), SLUICE_SERVICES_DIR, SLUICE_BINARY.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
check="$here/rest_check/run.sh"
services="${SLUICE_SERVICES_DIR:-$repo/integration/services}"
run="${SLUICE_RUN_DIR:?run through ctest, or set SLUICE_RUN_DIR to the run dir of services/*.sh}"
fixture="$repo/tests/fixtures/debezium/default_uuid_pk.jsonl"

worker_only=0
case "${1:-}" in
  "") ;;
  --worker-only) worker_only=1 ;;
  *)
    echo "usage: rest_parity_test.sh [--worker-only]" >&2
    exit 2
    ;;
esac

started=$SECONDS
log() { echo "rest_parity: $*" >&2; }
fail() {
  log "FAILED: $*"
  exit 1
}

for tool in curl jq kcat psql; do
  command -v "$tool" >/dev/null || fail "$tool not found (integration/services/install-deps.sh)"
done
for file in kafka.bootstrap postgres.dsn connect.url; do
  [[ -s "$run/$file" ]] || fail "no $run/$file: the kafka, postgres and connect fixtures must run"
done
bootstrap="$(cat "$run/kafka.bootstrap")"
dsn="$(cat "$run/postgres.dsn")"
worker="$(cat "$run/connect.url")"

# Everything this run makes is named after one random id (the services outlive the test).
id="$(od -An -tx1 -N4 /dev/urandom | tr -d ' \n')"
topic="rc_$id.public.uuid_pk"
worker_name="rc_${id}_worker"
sluice_name="rc_${id}_sluice"
token="rc-token-$id"
config="$run/$sluice_name.yaml"
sluice_log="$run/$sluice_name.log"
sluice_pid=""
connectors=()  # made on the worker, deleted at the end

cleanup() {
  local rc=$? i
  if [[ -n "$sluice_pid" ]] && kill -0 "$sluice_pid" 2>/dev/null; then
    kill -TERM "$sluice_pid" 2>/dev/null || true
    for ((i = 0; i < 300; i++)); do
      kill -0 "$sluice_pid" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$sluice_pid" 2>/dev/null; then
      log "sluice (pid $sluice_pid) still running 30 s after SIGTERM: KILL"
      kill -KILL "$sluice_pid" 2>/dev/null || true
      rc=1
    fi
    wait "$sluice_pid" 2>/dev/null || true
  fi
  for name in "${connectors[@]}"; do
    curl -s -o /dev/null -m 30 -X DELETE "$worker/connectors/$name" || true
  done
  # The tables both sinks made: Debezium's is named after the topic, sluice's after its format.
  psql "$dsn" -q -v ON_ERROR_STOP=1 -c "DROP TABLE IF EXISTS public.\"rc_${id}_public_uuid_pk\", \
    public.\"rc_${id}_sluice_uuid_pk\"" >/dev/null 2>&1 || log "could not drop the test's tables"
  if [[ $rc -eq 0 ]]; then
    rm -f "$config" "$sluice_log"
  elif [[ -s "$sluice_log" ]]; then
    log "sluice's log ($sluice_log), last lines:"
    tail -n 40 "$sluice_log" >&2
  fi
  log "$( ((rc == 0)) && echo passed || echo failed) in $((SECONDS - started)) s"
  exit "$rc"
}
trap cleanup EXIT

# The checker first: a compile error should not cost a connector's start.
"$check" --compile-only

# --- the topic and its messages -----------------------------------------------------------
"$services/kafka.sh" topic "$topic" 1 >/dev/null 2>&1 || fail "could not create topic $topic"
# Fixture lines are {"key":K,"value":V} as JsonConverter wrote them; tombstones are left out.
messages="$(jq -c -r 'select(.value != null) | [(.key | tojson), (.value | tojson)] | join("\t")' \
  "$fixture")"
count="$(grep -c . <<<"$messages")"
kcat -P -b "$bootstrap" -t "$topic" -p 0 -K $'\t' <<<"$messages" || fail "kcat could not produce"
log "topic $topic: $count messages"

# --- helpers -------------------------------------------------------------------------------

# create_worker_connector NAME: Debezium's JDBC sink for $topic (like debezium-jdbc-sink.json).
create_worker_connector() {
  local name="$1" url user status
  # postgres.sh's DSN, postgresql://USER@HOST:PORT/DB?..., as JDBC takes it.
  url="jdbc:postgresql://$(sed -E 's|^postgresql://[^@]+@([^?]+).*|\1|' <<<"$dsn")"
  user="$(sed -E 's|^postgresql://([^@:]+).*|\1|' <<<"$dsn")"
  status="$(jq -n --arg name "$name" --arg topic "$topic" --arg url "$url" --arg user "$user" '{
      name: $name,
      config: {
        "connector.class": "io.debezium.connector.jdbc.JdbcSinkConnector",
        "tasks.max": "1",
        "topics": $topic,
        "connection.url": $url,
        "connection.username": $user,
        "connection.password": "unused-trust-auth",
        "insert.mode": "upsert",
        "primary.key.mode": "record_key",
        "delete.enabled": "true",
        "schema.evolution": "basic"
      }}' | curl -s -o "$run/$name.created" -w '%{http_code}' -m 30 -X POST \
    -H 'Content-Type: application/json' --data @- "$worker/connectors")"
  [[ "$status" == 201 ]] || fail "POST /connectors for $name: $status $(cat "$run/$name.created")"
  rm -f "$run/$name.created"
  connectors+=("$name")
}

# offset_of URL NAME [CURL_ARGS...]: the kafka_offset of $topic/0 in GET offsets, or "".
offset_of() {
  local url="$1" name="$2"
  shift 2
  curl -s -m 5 "$@" "$url/connectors/$name/offsets" 2>/dev/null |
    jq -r --arg t "$topic" '.offsets[]? | select(.partition.kafka_topic == $t and
      .partition.kafka_partition == 0) | .offset.kafka_offset' 2>/dev/null || true
}

# wait_consumed LABEL URL NAME [CURL_ARGS...]: every message committed, within 90 s.
wait_consumed() {
  local label="$1" url="$2" name="$3" i offset=""
  shift 3
  for ((i = 0; i < 450; i++)); do
    offset="$(offset_of "$url" "$name" "$@")"
    [[ "$offset" == "$count" ]] && {
      log "$label has committed all $count messages ($((SECONDS - started)) s)"
      return 0
    }
    sleep 0.2
  done
  fail "$label did not commit offset $count of $topic/0 within 90 s (last: '${offset}');" \
    "status: $(curl -s -m 5 "$url/connectors/$name/status")"
}

# free_port: a random loopback port nothing listens on (sluice fails to start if taken since).
free_port() {
  local port i
  for ((i = 0; i < 100; i++)); do
    port=$((20000 + RANDOM % 20000))
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || {
      echo "$port"
      return 0
    }
  done
  fail "no free port"
}

# --- the two sides -------------------------------------------------------------------------
create_worker_connector "$worker_name"
if ((worker_only)); then
  sluice_name="rc_${id}_second"
  create_worker_connector "$sluice_name"
  sluice_url="$worker"
  wait_consumed "the worker's $worker_name" "$worker" "$worker_name"
  wait_consumed "the worker's $sluice_name" "$worker" "$sluice_name"
else
  [[ -n "${SLUICE_BINARY:-}" && -x "$SLUICE_BINARY" ]] || fail "SLUICE_BINARY is not set"
  port="$(free_port)"
  sluice_url="http://127.0.0.1:$port"
  cat >"$config" <<YAML
name: $sluice_name
kafka:
  bootstrap.servers: $bootstrap
  group.id: $sluice_name
  auto.offset.reset: earliest
  session.timeout.ms: 6000
  heartbeat.interval.ms: 500
topics: [$topic]
format: debezium
postgres:
  dsn: "$dsn"
table.name.format: "public.rc_${id}_sluice_\${table}"
batch.max.ms: 200
metrics:
  listen: "127.0.0.1:$port"
http:
  auth.token: "$token"
YAML
  "$SLUICE_BINARY" run -c "$config" </dev/null >"$sluice_log" 2>&1 &
  sluice_pid=$!
  log "sluice (pid $sluice_pid) on $sluice_url, log $sluice_log"
  for ((i = 0; ; i++)); do
    kill -0 "$sluice_pid" 2>/dev/null || fail "sluice exited during start-up"
    [[ "$(curl -s -o /dev/null -w '%{http_code}' -m 2 "$sluice_url/readyz")" == 200 ]] && break
    ((i < 300)) || fail "sluice's /readyz did not answer 200 within 60 s"
    sleep 0.2
  done
  status="$(curl -s -o /dev/null -w '%{http_code}' -m 5 "$sluice_url/connectors")"
  [[ "$status" == 200 ]] ||
    fail "sluice does not serve Connect's REST API: GET /connectors answered $status"
  wait_consumed "the worker's $worker_name" "$worker" "$worker_name"
  wait_consumed "sluice" "$sluice_url" "$sluice_name" -H "Authorization: Bearer $token"
fi

# --- the comparison ------------------------------------------------------------------------
args=(--worker "$worker" --worker-connector "$worker_name" --sluice "$sluice_url"
  --sluice-connector "$sluice_name" --topic "$topic" --token "$token")
((worker_only)) || args+=(--sluice-checks)
check_started=$SECONDS
"$check" "${args[@]}" || fail "sluice's answers differ from the worker's (above)"
log "RestCheck: $((SECONDS - check_started)) s"
