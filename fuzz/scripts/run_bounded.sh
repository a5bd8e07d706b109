#!/usr/bin/env bash
# Bounded fuzzing, as CI runs it (scripts/test.sh): every libFuzzer target built in
# build-fuzz/fuzz/ runs for SECONDS from the committed corpus fuzz/corpus/<target>, JOBS
# targets at a time, each one plain libFuzzer process (not fork mode: the first finding ends
# it), with the limits of fuzz/scripts/limits.sh (64 KiB+ inputs for the Avro targets, no
# allocation near 64 MiB). A crash, leak, timeout (an input over 10 s), out-of-memory (a
# malloc over the limit too) or broken invariant (the output bound among them) fails the run;
# the end of the output names each finding's file and the command that reproduces it.
#
# New inputs go to build-fuzz/work/<target> (fuzz/scripts/merge_corpus.sh distils them into
# the committed corpus); findings and logs to build-fuzz/ci/<target>/, emptied first.
# The sanitizers run with libFuzzer's defaults (ASAN_OPTIONS & co. unset), as when
# reproducing by hand.
#
# Usage: fuzz/scripts/run_bounded.sh [SECONDS per target, default 60] [JOBS, default 2]
set -euo pipefail

seconds="${1:-60}"
jobs="${2:-2}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="$root/build-fuzz"
# shellcheck source=fuzz/scripts/limits.sh
. "$root/fuzz/scripts/limits.sh"
unset ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS

targets=()
for exe in "$build"/fuzz/fuzz_*; do
  [[ -x "$exe" && -f "$exe" ]] && targets+=("${exe##*/fuzz_}")
done
if ((${#targets[@]} == 0)); then
  echo "run_bounded.sh: no fuzz target in $build/fuzz (build the sluice_fuzzers target)" >&2
  exit 1
fi

run_one() {
  local t="$1" dir="$build/ci/$1" dict=()
  rm -rf "$dir"
  mkdir -p "$dir" "$build/work/$t"
  [[ -f "$root/fuzz/dict/$t.dict" ]] && dict=(-dict="$root/fuzz/dict/$t.dict")
  local rc=0 limits
  read -r -a limits <<<"$(fuzz_limits "$t")"
  "$build/fuzz/fuzz_$t" "$build/work/$t" "$root/fuzz/corpus/$t" "${dict[@]}" \
    "${limits[@]}" -max_total_time="$seconds" \
    -print_final_stats=1 -artifact_prefix="$dir/" >"$dir/log" 2>&1 || rc=$?
  echo "$rc" >"$dir/status"
}

echo "fuzzing ${#targets[@]} targets for ${seconds} s each, ${jobs} at a time: ${targets[*]}"
running=0
for t in "${targets[@]}"; do
  if ((running >= jobs)); then
    wait -n || true
    running=$((running - 1))
  fi
  run_one "$t" &
  running=$((running + 1))
done
wait || true

failed=()
printf '\n%-16s %-7s %12s %9s %7s %7s\n' target result executions exec/s cov ft
for t in "${targets[@]}"; do
  dir="$build/ci/$t"
  rc="$(cat "$dir/status" 2>/dev/null || echo '?')"
  runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -n 1)"
  speed="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/log" | tail -n 1)"
  # The last status line: "#123456 DONE cov: 1752 ft: 6489 corp: ..." (or the last pulse).
  status_line="$(grep -E '^#[0-9]+.*cov: [0-9]+ ft: [0-9]+' "$dir/log" | tail -n 1 || true)"
  cov="$(sed -E -n 's/.*cov: ([0-9]+).*/\1/p' <<<"$status_line")"
  ft="$(sed -E -n 's/.*ft: ([0-9]+).*/\1/p' <<<"$status_line")"
  result=ok
  [[ "$rc" == 0 ]] || { result=FAILED; failed+=("$t"); }
  printf '%-16s %-7s %12s %9s %7s %7s\n' "$t" "$result" "${runs:--}" "${speed:--}" \
    "${cov:--}" "${ft:--}"
done

((${#failed[@]} == 0)) && exit 0
for t in "${failed[@]}"; do
  dir="$build/ci/$t"
  printf '\n--- fuzz_%s failed (exit %s); the end of %s ---\n' "$t" "$(cat "$dir/status")" \
    "$dir/log"
  tail -n 60 "$dir/log"
  for finding in "$dir"/crash-* "$dir"/leak-* "$dir"/timeout-* "$dir"/oom-* "$dir"/slow-unit-*; do
    [[ -e "$finding" ]] || continue
    printf '\nfinding: %s\nreproduce: %s %s\n' "$finding" "$build/fuzz/fuzz_$t" "$finding"
  done
done
printf '\nOnce fixed, keep each finding as fuzz/corpus/<target>/regression-<what it was>.\n'
exit 1
