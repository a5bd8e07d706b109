#!/bin/sh
# Runs one fuzz target for SECONDS (default 1800) at the lowest CPU priority, growing
# build-fuzz/work/<target> from build-fuzz/seeds/<target> and fuzz/corpus/<target>.
# Fork mode with -ignore_crashes keeps fuzzing after a finding; findings are saved as
# build-fuzz/artifacts/<target>/crash-* (or leak-, timeout-, oom-).
# Usage: fuzz/scripts/run_fuzzer.sh <target> [seconds]
set -eu
target=$1
seconds=${2:-1800}
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$root/build-fuzz
. "$root/fuzz/scripts/limits.sh"
mkdir -p "$build/work/$target" "$build/artifacts/$target" "$build/logs"
# shellcheck disable=SC2046  # the limits are separate flags
exec nice -n 19 "$build/fuzz/fuzz_$target" "$build/work/$target" \
  "$build/seeds/$target" "$root/fuzz/corpus/$target" \
  -dict="$root/fuzz/dict/$target.dict" $(fuzz_limits "$target") \
  -max_total_time="$seconds" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
  -artifact_prefix="$build/artifacts/$target/" -print_final_stats=1
