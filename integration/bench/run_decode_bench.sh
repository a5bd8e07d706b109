#!/usr/bin/env bash
# Runs decode_bench RUNS times (default 3; the machine is shared, so one run proves little),
# prints each run's table, then per format a summary: best = the best pass of all runs, median =
# the median over the runs of each run's median pass. Arguments go to decode_bench:
#
#   RUNS=5 integration/bench/run_decode_bench.sh [--events N] [--passes N] [--only FORMAT]
#                                                 [--tables N] [--clear-every N]
#
# Builds decode_bench first (BUILD_DIR, default build). Needs no service.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$REPO/build}"
RUNS="${RUNS:-3}"
BENCH="$BUILD_DIR/integration/decode_bench"

ninja -C "$BUILD_DIR" decode_bench >/dev/null

out="$(mktemp)"
trap 'rm -f "$out"' EXIT
echo "command: RUNS=$RUNS $0 $*"
for run in $(seq 1 "$RUNS"); do
  echo "--- run $run/$RUNS: $BENCH --tsv $*"
  "$BENCH" --tsv "$@" >"$out.run"
  grep -v '^tsv' "$out.run"
  grep '^tsv' "$out.run" >>"$out"
done
rm -f "$out.run"

# tsv fields: 2 format, 3 B/event, 4-5 events/s best/median, 6-7 MB/s best/median,
# 8 allocs/event, 9 alloc B/event, 10-11 bare events/s best/median, 12-13 ratio best/median.
echo "--- $RUNS runs: best pass of all / median of the runs' medians"
printf '%-16s %6s %21s %15s %7s %21s %6s\n' format B/ev "events/s best/med" "MB/s best/med" \
  allocs "bare events/s b/m" "ratio b/m"
for format in $(cut -f2 "$out" | awk '!seen[$0]++'); do
  awk -F'\t' -v f="$format" '
    function best(a,   i, m) { m = a[1]; for (i = 2; i <= n; i++) if (a[i] > m) m = a[i]; return m }
    function med(a,   i, j, t, b) {
      for (i = 1; i <= n; i++) b[i] = a[i]
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (b[j] < b[i]) { t = b[i]; b[i] = b[j]; b[j] = t }
      return n % 2 ? b[(n + 1) / 2] : (b[n / 2] + b[n / 2 + 1]) / 2
    }
    $2 == f {
      n++; bytes = $3; allocs = $8
      ev_b[n] = $4; ev_m[n] = $5; mb_b[n] = $6; mb_m[n] = $7
      bare_b[n] = $10; bare_m[n] = $11; ratio_b[n] = $12; ratio_m[n] = $13
    }
    END {
      printf "%-16s %6.0f %10.0f %10.0f %7.1f %7.1f %7.2f %10.0f %10.0f %6.2f %6.2f\n", f, bytes,
        best(ev_b), med(ev_m), best(mb_b), med(mb_m), allocs, best(bare_b), med(bare_m),
        best(ratio_b), med(ratio_m)
    }' "$out"
done
