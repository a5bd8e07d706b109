#!/usr/bin/env bash
# Runs prepare_bench RUNS times (default 3; the machine is shared, so one run proves little),
# prints each run's table, then a summary: the best pass of all runs per configuration and
# their ratio, and the median of the runs' median ratios. Arguments go to prepare_bench:
#
#   RUNS=5 integration/bench/run_prepare_bench.sh [--events N] [--repeat N] [--passes N]
#                                                  [--batch N] [--skip-every N] [--only none]
#   RUNS=5 integration/bench/run_prepare_bench.sh --baseline [prepare_bench arguments]
#
# --baseline answers "is prepare without transforms unchanged?": it builds the same bench on
# the tree from before the transforms (BASELINE_COMMIT, default 81eafe5~1, the parent of
# "transforms: RegexRouter and ReplaceField ... run in prepare/"; git archive into BASELINE_DIR,
# default /tmp/sluice-prepare-baseline, its own build/ there), then runs both with --only none,
# alternating, RUNS times each, and prints the two medians and their ratio.
#
# Builds prepare_bench first (BUILD_DIR, default build). Needs no service.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$REPO/build}"
RUNS="${RUNS:-3}"
BENCH="$BUILD_DIR/integration/prepare_bench"

ninja -C "$BUILD_DIR" prepare_bench >/dev/null

out="$(mktemp)"
trap 'rm -f "$out" "$out.run" "$out.base"' EXIT
echo "command: RUNS=$RUNS $0 $*"

if [[ "${1:-}" == "--baseline" ]]; then
  shift
  commit="${BASELINE_COMMIT:-81eafe5~1}"
  dir="${BASELINE_DIR:-/tmp/sluice-prepare-baseline}"
  if [[ ! -x "$dir/build/integration/prepare_bench" ]]; then
    echo "--- building prepare_bench on $commit in $dir (once)"
    rm -rf "$dir" && mkdir -p "$dir"
    git -C "$REPO" archive "$commit" | tar -x -C "$dir"
    cp "$REPO/integration/bench/prepare_bench.cc" "$dir/integration/bench/"
    sed -n '/^add_executable(prepare_bench/,/^target_compile_definitions(prepare_bench/p' \
      "$REPO/integration/CMakeLists.txt" >>"$dir/integration/CMakeLists.txt"
    cmake -S "$dir" -B "$dir/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      ${CMAKE_CXX_COMPILER_LAUNCHER:+-DCMAKE_CXX_COMPILER_LAUNCHER=$CMAKE_CXX_COMPILER_LAUNCHER} \
      >/dev/null
  fi
  ninja -C "$dir/build" prepare_bench >/dev/null
  for run in $(seq 1 "$RUNS"); do
    for which in baseline current; do
      bench="$BENCH"
      [[ "$which" == baseline ]] && bench="$dir/build/integration/prepare_bench"
      "$bench" --tsv --only none "$@" >"$out.run"
      line="$(grep '^tsv' "$out.run")"
      echo "--- run $run/$RUNS $which: $(grep -v '^tsv' "$out.run" | grep -E '^(none|load)' |
        tr '\n' ' ')"
      echo "$which	$line" >>"$out"
    done
  done
  # fields: 1 which, 3 msg/s best, 9 msg/s median.
  awk -F'\t' '
    function median(a, n,   i, j, t) {
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    $1 == "baseline" { nb++; bb[nb] = $3; mb[nb] = $9 }
    $1 == "current" { nc++; bc[nc] = $3; mc[nc] = $9 }
    END {
      b = median(mb, nb); c = median(mc, nc)
      printf "--- no transform, msg/s, median of the runs'"'"' medians: before the transforms %.0f, now %.0f; time now/before %.3f\n", b, c, b / c
    }' "$out"
  exit 0
fi

for run in $(seq 1 "$RUNS"); do
  echo "--- run $run/$RUNS: $BENCH --tsv $*"
  "$BENCH" --tsv "$@" >"$out.run"
  grep -v '^tsv' "$out.run"
  grep '^tsv' "$out.run" >>"$out"
done

# tsv fields: 2-3 msg/s best none/chain, 4-5 ns/msg best none/chain, 6-7 ratio best/median,
# 8 msg/s median none, 9- load average after the run.
echo "--- $RUNS runs"
awk -F'\t' '
  function median(a,   i, j, t) {
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  { n++; if ($2 > bn) bn = $2; if ($3 > bc) bc = $3; r[n] = $7 }
  END {
    printf "best msg/s: none %.0f (%.0f ns/msg), chain %.0f (%.0f ns/msg); chain/none time %.3f\n",
      bn, 1e9 / bn, bc, 1e9 / bc, bn / bc
    printf "median of the runs'"'"' median ratios chain/none: %.3f\n", median(r)
  }' "$out"
