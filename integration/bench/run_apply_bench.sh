#!/usr/bin/env bash
# Runs apply_bench against a throwaway PostgreSQL of its own (integration/services/postgres.sh
# with SLUICE_RUN_DIR=build/bench-run), then stops it. Arguments go to apply_bench:
#
#   integration/bench/run_apply_bench.sh [--rows N] [--batches N] [--only WORKLOAD]
#
# Builds apply_bench first (BUILD_DIR, default build). The figures are apply() rows/s against
# a raw COPY of the same rows into an identical table, in the same run, on the same server.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$REPO/build}"
export SLUICE_RUN_DIR="$BUILD_DIR/bench-run"
mkdir -p "$SLUICE_RUN_DIR"

ninja -C "$BUILD_DIR" apply_bench >/dev/null

"$REPO/integration/services/postgres.sh" start
trap '"$REPO/integration/services/postgres.sh" stop' EXIT
"$BUILD_DIR/integration/apply_bench" --dsn "$(cat "$SLUICE_RUN_DIR/postgres.dsn")" "$@"
