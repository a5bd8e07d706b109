#!/usr/bin/env bash
# The README's first command: builds sluice and replicates sample CDC through a real Kafka broker
# into a throwaway PostgreSQL, on this machine (Debian 12), then shows the replica and metrics.
#
#   ./scripts/demo.sh
#
# Steps: install dependencies; build build/sluice; start Kafka (KRaft) and PostgreSQL on free
# loopback ports; create topic demo.cdc (3 partitions); produce 17 Datastream events for
# public.customers keyed by id (examples/datastream/customers.sh); run `sluice run -c`; wait until
# the replica holds the expected rows and sluice's stored offsets cover every message; print the
# rows and sluice_* metrics; stop everything.
#
# Environment:
#   SLUICE_RUN_DIR     where the services and sluice keep their files (default build/demo)
#   SLUICE_DEMO_KEEP=1 leave Kafka and PostgreSQL running at the end (stop them with
#                      integration/services/{kafka,postgres}.sh stop, same SLUICE_RUN_DIR)
#   SLUICE_DEMO_TIMEOUT seconds to wait for the replica (default 60)
#   SLUICE_SKIP_BUILD=1 use the existing build/sluice
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
export SLUICE_RUN_DIR="${SLUICE_RUN_DIR:-$repo/build/demo}"
services="$repo/integration/services"
sluice_bin="$repo/build/sluice"
timeout="${SLUICE_DEMO_TIMEOUT:-60}"
topic=demo.cdc
table=public.customers

step() { printf '\n==> %s\n' "$*" >&2; }

sluice_pid=""
cleanup() {
  local rc=$?
  if [[ -n "$sluice_pid" ]] && kill -0 "$sluice_pid" 2>/dev/null; then
    kill -TERM "$sluice_pid" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$sluice_pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$sluice_pid" 2>/dev/null || true
  fi
  if [[ "${SLUICE_DEMO_KEEP:-0}" == 1 && $rc -eq 0 ]]; then
    step "Kafka and PostgreSQL left running (SLUICE_RUN_DIR=$SLUICE_RUN_DIR)"
  else
    "$services/kafka.sh" stop || true
    "$services/postgres.sh" stop || true
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

step "Installing dependencies"
"$services/install-deps.sh"

if [[ "${SLUICE_SKIP_BUILD:-0}" != 1 ]]; then
  step "Building sluice"
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build build -j2 --target sluice
fi
if [[ ! -x "$sluice_bin" ]]; then
  # The executable may be built in a subfolder (build/connector/sluice).
  found="$(find "$repo/build" -maxdepth 3 -type f -name sluice -perm -u+x -print -quit)"
  [[ -n "$found" ]] || {
    echo "demo.sh: $sluice_bin was not built" >&2
    exit 1
  }
  sluice_bin="$found"
fi

step "Starting Kafka and PostgreSQL (run dir $SLUICE_RUN_DIR)"
"$services/kafka.sh" start
"$services/postgres.sh" start
bootstrap="$(cat "$SLUICE_RUN_DIR/kafka.bootstrap")"
dsn="$(cat "$SLUICE_RUN_DIR/postgres.dsn")"
psql_q() { "$services/postgres.sh" psql -qAt -v ON_ERROR_STOP=1 "$@"; }

step "Creating topic $topic (3 partitions) and producing sample Datastream CDC"
"$services/kafka.sh" topic "$topic" 3
examples/datastream/customers.sh | kcat -P -b "$bootstrap" -t "$topic" -K '|'
produced="$(examples/datastream/customers.sh --count)"
echo "produced $produced events for $table" >&2

SERVICE_NAME=demo.sh
# shellcheck source=integration/services/common.sh
source "$services/common.sh" # free_port
metrics_port="$(free_port)"
config="$SLUICE_RUN_DIR/sluice-demo.yaml"
cat >"$config" <<EOF
# Written by scripts/demo.sh
name: demo
kafka:
  bootstrap.servers: $bootstrap
  group.id: sluice-demo
  auto.offset.reset: earliest
topics: [$topic]
format: datastream
postgres:
  dsn: "$dsn"
auto.create: true
auto.evolve: true
metrics:
  listen: 127.0.0.1:$metrics_port
EOF

step "Running: ${sluice_bin#"$repo"/} run -c $config"
"$sluice_bin" run -c "$config" >"$SLUICE_RUN_DIR/sluice.log" 2>&1 </dev/null &
sluice_pid=$!

# Done when the replica has the expected rows and sluice's offsets (stored in PostgreSQL, in the
# same transaction as the rows) cover every produced message.
expected="$(examples/datastream/customers.sh --expected)"
expected_rows="$(wc -l <<<"$expected")"
applied_offsets() {
  # The column holding the next offset, whatever sluice calls it (the table name is a contract).
  local column
  column="$(psql_q -c "SELECT column_name FROM information_schema.columns
      WHERE table_schema = 'sluice' AND table_name = 'offsets' AND column_name LIKE '%offset%'
      ORDER BY column_name LIMIT 1" 2>/dev/null)" || return 1
  [[ -n "$column" ]] || return 1
  psql_q -c "SELECT coalesce(sum(\"$column\"), 0) FROM sluice.offsets" 2>/dev/null
}
rows=0 offsets=0 deadline=$((SECONDS + timeout))
while :; do
  if ! kill -0 "$sluice_pid" 2>/dev/null; then
    wait "$sluice_pid" && rc=0 || rc=$?
    sluice_pid=""
    tail -n 40 "$SLUICE_RUN_DIR/sluice.log" >&2
    echo "demo.sh: sluice exited with status $rc (log: $SLUICE_RUN_DIR/sluice.log)" >&2
    exit 1
  fi
  rows="$(psql_q -c "SELECT count(*) FROM $table" 2>/dev/null || echo 0)"
  offsets="$(applied_offsets || echo 0)"
  if ((rows == expected_rows && offsets >= produced)); then break; fi
  if ((SECONDS >= deadline)); then
    tail -n 40 "$SLUICE_RUN_DIR/sluice.log" >&2
    echo "demo.sh: after ${timeout}s the replica has $rows rows (expected $expected_rows) and" \
      "offsets cover $offsets of $produced messages" >&2
    exit 1
  fi
  sleep 0.5
done

step "Replica $table ($rows rows; sluice.offsets covers $offsets messages)"
"$services/postgres.sh" psql -c "SELECT * FROM $table ORDER BY id"
actual="$(psql_q -F '|' -c "SELECT id, name, email, balance FROM $table ORDER BY id")"
if [[ "$actual" != "$expected" ]]; then
  echo "demo.sh: the replica differs from the expected state:" >&2
  diff <(echo "$expected") <(echo "$actual") >&2 || true
  exit 1
fi
echo "The replica matches the source: $expected_rows rows after inserts, updates and deletes." >&2

step "Metrics (http://127.0.0.1:$metrics_port/metrics)"
if metrics="$(curl -sf --max-time 5 "http://127.0.0.1:$metrics_port/metrics")"; then
  grep '^sluice_' <<<"$metrics" || echo "(no sluice_ metrics exposed)"
else
  echo "(the metrics endpoint did not answer)"
fi

step "Stopping sluice (SIGTERM: it finishes and commits the batch in flight)"
kill -TERM "$sluice_pid"
rc=0
wait "$sluice_pid" || rc=$?
sluice_pid=""
if ((rc != 0)); then
  tail -n 20 "$SLUICE_RUN_DIR/sluice.log" >&2
  echo "demo.sh: sluice exited with status $rc after SIGTERM (expected 0)" >&2
  exit 1
fi
echo "sluice drained and exited with status 0; log: $SLUICE_RUN_DIR/sluice.log" >&2
