#!/usr/bin/env bash
# Times the apply statement's variants inside PostgreSQL alone, without Kafka or sluice on the
# same cores: the guarded MERGE as sluice sends it against what issue 16 proposed instead (no
# tombstone guard, a typed stage, two statements, a lower fill factor, cheaper tombstones).
# Each run starts from a fresh table (integration/bench/pg_variants/setup.sql: 90,000 rows of
# the Debezium bench's shape, a 9,000-row stage of 5,000 updates and 4,000 new keys); prints the
# median and the range of RUNS runs of each variant, in ms.
#
#   integration/bench/run_pg_variants.sh          (RUNS=5 by default; ONLY=<regex> picks variants)
#
# Starts a PostgreSQL of its own (integration/services/postgres.sh, SLUICE_RUN_DIR=<build>/
# bench-pg) and stops it on exit.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export SLUICE_RUN_DIR="${BUILD_DIR:-$REPO/build}/bench-pg"
SERVICES="$REPO/integration/services"
VARIANTS="$REPO/integration/bench/pg_variants"
RUNS="${RUNS:-5}"
mkdir -p "$SLUICE_RUN_DIR"

trap '"$SERVICES/postgres.sh" stop >/dev/null 2>&1 || true' EXIT
"$SERVICES/postgres.sh" start >/dev/null
psql_() { "$SERVICES/postgres.sh" psql -X -v ON_ERROR_STOP=1 "$@"; }

# One variant: "label|file|fill factor".
variants=(
  "guarded MERGE (as sluice sends it)|merge.sql|100"
  "MERGE without the tombstone guard|merge_noguard.sql|100"
  "MERGE, newest-tombstone shortcut (tried)|merge_newest_tombstone.sql|100"
  "the text -> type casts alone|casts.sql|100"
  "UPDATE, then INSERT the new keys|update_then_insert.sql|100"
  "guarded MERGE, fillfactor 85|merge.sql|85"
  "9,000 tombstones|tombstones.sql|100"
  "9,000 tombstones + newest index (tried)|tombstones_newest_index.sql|100"
  "9,000 tombstones, no deleted_at index|tombstones_no_index.sql|100"
  "9,000 tombstones, no jsonb key|tombstones_no_json.sql|100"
)

printf '%-42s %8s %18s\n' "variant (9,000 rows)" "median" "range (ms)"
for v in "${variants[@]}"; do
  IFS='|' read -r label file ff <<<"$v"
  [[ -z "${ONLY:-}" || "$label" =~ $ONLY ]] || continue
  times=()
  for ((r = 0; r < RUNS; r++)); do
    psql_ -q -v ff="$ff" -f "$VARIANTS/setup.sql" >/dev/null
    # "-- pre: <statement>" lines run first, untimed.
    pre="$(sed -n 's/^-- pre: //p' "$VARIANTS/$file")"
    [[ -z "$pre" ]] || psql_ -q -c "$pre" >/dev/null
    # Every statement of the file is timed; a variant's time is their sum.
    times+=("$(psql_ -q -c '\timing on' -f "$VARIANTS/$file" | awk '/^Time:/ { t += $2 } END { printf "%.1f", t }')")
  done
  sorted="$(printf '%s\n' "${times[@]}" | sort -n)"
  median="$(sed -n "$(((RUNS + 1) / 2))p" <<<"$sorted")"
  printf '%-42s %8s %18s\n' "$label" "$median" "$(head -1 <<<"$sorted")–$(tail -1 <<<"$sorted")"
done
