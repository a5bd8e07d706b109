#!/usr/bin/env bash
# Runs e2e_bench (sluice end to end, Kafka -> sluice -> PostgreSQL, against a raw COPY of the
# same rows, then latency at a fixed rate) against a Kafka broker and a PostgreSQL of its own
# (integration/services/{kafka,postgres}.sh with SLUICE_RUN_DIR=<build>/bench-e2e), and stops
# both on exit. With --target mariadb: a MariaDB of its own instead of PostgreSQL
# (integration/services/mariadb.sh), sluice writing to it, and a raw LOAD DATA LOCAL INFILE of
# the same rows as the reference. Arguments go to e2e_bench:
#
#   integration/bench/run_e2e_bench.sh [--target postgres|mariadb] [--format F] [--events N]
#                                      [--inserts-only] [--batch-size N] [--lanes N]
#                                      [--partitions N] [--rate N] [--seconds N] [--seed N]
#                                      [--kafka name=value] [--set name=value] [--keep]
#   F: datastream (default), datastream-avro, debezium, debezium-40, debezium-schemaless
#   --inserts-only: every event inserts a new key (Datastream formats)
#   --kafka / --set: added to sluice's config, for experiments (--kafka queued.max.messages.kbytes=16384,
#   --set batch.max.bytes=16MiB)
#
# Builds e2e_bench and sluice first (BUILD_DIR, default build; SKIP_BUILD=1 skips it).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$REPO/build}"
export SLUICE_RUN_DIR="$BUILD_DIR/bench-e2e"
export SLUICE_SERVICES_DIR="$REPO/integration/services"
export SLUICE_BINARY="$BUILD_DIR/sluice"
mkdir -p "$SLUICE_RUN_DIR"

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  ninja -C "$BUILD_DIR" e2e_bench sluice >/dev/null
fi
[[ -x "$BUILD_DIR/integration/e2e_bench" && -x "$SLUICE_BINARY" ]] \
  || { echo "run_e2e_bench.sh: build $BUILD_DIR/integration/e2e_bench and $SLUICE_BINARY first" >&2; exit 1; }

# The database the run writes to: postgres (default) or mariadb (--target, also passed on).
TARGET=postgres
args=("$@")
for ((i = 0; i < ${#args[@]}; ++i)); do
  [[ "${args[i]}" == --target ]] && TARGET="${args[i + 1]:-}"
done
[[ "$TARGET" == postgres || "$TARGET" == mariadb ]] \
  || { echo "run_e2e_bench.sh: --target is postgres or mariadb" >&2; exit 2; }

# The services' own stop commands find them by the pids they wrote to the run dir.
stop_services() {
  "$SLUICE_SERVICES_DIR/kafka.sh" stop || true
  "$SLUICE_SERVICES_DIR/$TARGET.sh" stop || true
}
trap stop_services EXIT
# Latency is measured to each row's commit: PostgreSQL records commit timestamps.
export SLUICE_PG_EXTRA_CONF="${SLUICE_PG_EXTRA_CONF:+$SLUICE_PG_EXTRA_CONF
}track_commit_timestamp = on"
# MariaDB's InnoDB reads and writes around the OS page cache (O_DIRECT), PostgreSQL through it:
# mariadb.sh's 128M buffer pool and 64M redo log, sized for the tests, are not the footing
# PostgreSQL's 256MB of shared buffers plus the page cache and 2GB of WAL give it. The
# benchmark's server gets 1G and 512M (SLUICE_MDB_EXTRA_ARGS replaces them): at a million events
# of the mix the 128M pool was rereading pages, 28.8 against 15.9 CPU s per M events.
export SLUICE_MDB_EXTRA_ARGS="${SLUICE_MDB_EXTRA_ARGS:---innodb-buffer-pool-size=1G --innodb-log-file-size=512M}"
"$SLUICE_SERVICES_DIR/kafka.sh" start
"$SLUICE_SERVICES_DIR/$TARGET.sh" start

E2E_BENCH_COMMAND="integration/bench/run_e2e_bench.sh $*" \
  "$BUILD_DIR/integration/e2e_bench" "$@"
