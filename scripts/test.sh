#!/usr/bin/env bash
# The README's second command, and what CI runs (.ci/run): every test.
#
#   ./scripts/test.sh [extra ctest arguments for the main run, e.g. -L unit or -R decode]
#
# 1. installs dependencies (integration/services/install-deps.sh; fast when already installed);
# 2. builds build/ (RelWithDebInfo) and runs all its tests (unit, integration, fault): the
#    Kafka broker and PostgreSQL are started and stopped by CTest fixtures
#    (integration/CMakeLists.txt), in build/run;
# 3. builds build-asan/ (-DSLUICE_SANITIZE=ON: ASan + UBSan) and runs its unit tests.
# Whatever happens, no service is left running on exit.
#
# Environment: SLUICE_JOBS (build parallelism, default 2), SLUICE_SKIP_ASAN=1 (skip step 3).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
jobs="${SLUICE_JOBS:-2}"
services="$repo/integration/services"

# CTest's cleanup fixtures normally stop the services; this catches interrupted or crashed runs.
# shellcheck disable=SC2317  # invoked by the trap
stop_services() {
  local dir service
  for dir in "$repo/build/run" "$repo/build-asan/run"; do
    [[ -d "$dir" ]] || continue
    for service in kafka postgres; do
      SLUICE_RUN_DIR="$dir" "$services/$service.sh" stop 2>&1 | grep -v 'not running' >&2 || true
    done
  done
}
trap stop_services EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

step() { printf '\n==> %s\n' "$*"; }

step "Dependencies"
"$services/install-deps.sh"

step "Build (build/, RelWithDebInfo)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"$jobs"

step "Tests (build/, all labels)"
status=0
rm -f build/Testing/Temporary/LastTestsFailed.log build-asan/Testing/Temporary/LastTestsFailed.log
ctest --test-dir build --output-on-failure -j1 "$@" || status=$?

if [[ "${SLUICE_SKIP_ASAN:-0}" != 1 ]]; then
  step "Build (build-asan/, ASan + UBSan)"
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSLUICE_SANITIZE=ON
  cmake --build build-asan -j"$jobs" --target sluice_unit_tests

  step "Unit tests under ASan + UBSan (build-asan/, -L unit)"
  # detect_stack_use_after_return: a pointer to a stack frame handed to a C library (a
  # librdkafka delivery opaque) and written to after the frame returned is an error.
  export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1}"
  export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
  # format.check and docs.config_reference already ran in build/ (they need no sanitizer).
  ctest --test-dir build-asan --output-on-failure -j"$jobs" -L unit \
    -E '^(format\.check|docs\.config_reference)$' \
    || status=$?
fi

# The end of a long run is what gets read first: name the failed tests there again, with the
# last lines of what each printed (the whole output is above, from --output-on-failure).
summarize_failures() {
  local dir="$1" failed="$1/Testing/Temporary/LastTestsFailed.log" name section
  [[ -s "$failed" ]] || return 0
  printf '\nFailed in %s/:\n' "$dir"
  sed 's/^[0-9]*:/  /' "$failed"
  while IFS= read -r name; do
    name="${name#*:}"
    section="$(awk -v n="$name" '
      { t = "Testing: " n }
      length($0) >= length(t) && substr($0, length($0) - length(t) + 1) == t { on = 1 }
      on { print }
      on && index($0, "\"" n "\" end time") == 1 { exit }' \
      "$dir/Testing/Temporary/LastTest.log")"
    printf '\n--- %s: its failed checks ---\n' "$name"
    grep -E -m 40 'ERROR|FATAL|Sanitizer|runtime error|Timeout|terminate|what\(\)' <<<"$section" || true
    printf -- '--- %s: its last lines ---\n' "$name"
    tail -n 25 <<<"$section"
  done <"$failed"
}

if ((status != 0)); then
  summarize_failures build
  summarize_failures build-asan
  step "FAILED (see the output above)"
fi
exit "$status"
