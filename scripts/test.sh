#!/usr/bin/env bash
# The README's second command, and what CI runs (.ci/run): every test.
#
#   ./scripts/test.sh [extra ctest arguments for the main run, e.g. -L unit or -R decode]
#
# Each suite runs once, on the build that checks the most (issue 26: two full runs of every
# test took 22 of CI's 65 minutes):
# 1. installs dependencies (integration/services/install-deps.sh; fast when already installed);
# 2. builds build/ (RelWithDebInfo: everything, the benchmarks included, so they keep
#    compiling) and runs the unit tests (the format and docs checks among them) and the tests
#    labelled `release`, which measure what only a release build shows (peak RSS); the Kafka
#    broker, PostgreSQL, MariaDB and the Schema Registry (Apicurio) are started and stopped by
#    CTest fixtures (integration/CMakeLists.txt), in build/run;
# 3. builds build-asan/ (-DSLUICE_SANITIZE=ON: ASan + UBSan, -O1 -g1): the unit tests, the
#    sluice binary and the integration programs; runs the unit tests, then every integration
#    and fault test (their own services, in build-asan/run). A sanitizer report fails the test,
#    also one from a `sluice` child process (integration/support/child_reports.h). With
#    SLUICE_SKIP_ASAN=1, step 2 runs every test instead;
# 4. builds build-tsan/ (-DSLUICE_TSAN=ON: ThreadSanitizer, without jemalloc) for a stated
#    subset, the tests labelled `tsan`: tsan.unit (the queues, the partition table, the state
#    holder, the dead-letter producer's concurrent sends, the health observer, the batch
#    preparer, the consumer, the HTTP server) and tsan.pipeline (one `sluice run` end to end:
#    two apply lanes, the owner worker, the janitor, the dead-letter producer). Suppressions:
#    tests/tsan/tsan.supp, uninstrumented libraries' internals only; librdkafka's C11 threads
#    are made visible to TSan by tests/tsan/c11_*.cc. SLUICE_SKIP_TSAN=1 skips it;
# 5. builds the libFuzzer targets in build-fuzz/ (clang-14, -DSLUICE_FUZZ=ON) and runs each
#    for SLUICE_FUZZ_SECONDS from its committed corpus (fuzz/scripts/run_bounded.sh): any
#    finding fails the run and is named, with the command that reproduces it.
# Whatever happens, no service is left running on exit; the time of each step is printed last.
#
# Environment: SLUICE_JOBS (build parallelism, default 2), SLUICE_SKIP_ASAN=1 (skip step 3),
# SLUICE_SKIP_TSAN=1 (skip step 4), SLUICE_SKIP_FUZZ=1 (skip step 5), SLUICE_FUZZ_SECONDS (per target, default 60; the targets
# run SLUICE_JOBS at a time). CMAKE_CXX_COMPILER_LAUNCHER=ccache is honoured by CMake.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
jobs="${SLUICE_JOBS:-2}"
services="$repo/integration/services"

# CTest's cleanup fixtures normally stop the services; this catches interrupted or crashed runs.
# shellcheck disable=SC2317  # invoked by the trap
stop_services() {
  local dir service
  for dir in "$repo/build/run" "$repo/build-asan/run" "$repo/build-tsan/run"; do
    [[ -d "$dir" ]] || continue
    # The Connect worker first: it keeps its state on the broker.
    for service in connect kafka postgres registry mariadb; do
      SLUICE_RUN_DIR="$dir" "$services/$service.sh" stop 2>&1 | grep -v 'not running' >&2 || true
    done
  done
}

# Each step's wall time, printed at the end (also when a step aborts the run).
timings=()
current_step=""
step_started=0
run_started=$SECONDS
finish_step() {
  [[ -n "$current_step" ]] || return 0
  timings+=("$(printf '%5d s  %s' $((SECONDS - step_started)) "$current_step")")
  current_step=""
}
step() {
  finish_step
  current_step="$*"
  step_started=$SECONDS
  printf '\n==> %s\n' "$*"
}
# Runs ctest in a build dir; when tests fail, keeps that run's logs (ctest overwrites them on
# the next run in the same dir) for the summary at the end.
status=0
failed_runs=()
run_ctest() {
  local name="$1" dir="$2" rc=0
  shift 2
  rm -f "$dir/Testing/Temporary/LastTestsFailed.log"
  ctest --test-dir "$dir" --output-on-failure "$@" || rc=$?
  ((rc == 0)) && return 0
  status=$rc
  if [[ -s "$dir/Testing/Temporary/LastTestsFailed.log" ]]; then
    cp "$dir/Testing/Temporary/LastTestsFailed.log" "$dir/Testing/failed-$name.log"
    cp "$dir/Testing/Temporary/LastTest.log" "$dir/Testing/log-$name.log"
    failed_runs+=("$dir $name")
  fi
}
# shellcheck disable=SC2317  # invoked by the trap
print_timings() {
  finish_step
  ((${#timings[@]} > 0)) || return 0
  printf '\nStep times (%s, %s cores):\n' "$(date -u +%FT%TZ)" "$(nproc)"
  printf '  %s\n' "${timings[@]}"
  printf '%7d s  in all\n' $((SECONDS - run_started))
}
# shellcheck disable=SC2317  # invoked by the trap
on_exit() {
  stop_services
  print_timings
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

step "Dependencies"
"$services/install-deps.sh"

step "Build (build/, RelWithDebInfo)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"$jobs"

if [[ "${SLUICE_SKIP_ASAN:-0}" == 1 ]]; then
  step "Tests (build/, all labels)"
  run_ctest all build -j1 "$@"
else
  step "Tests (build/, -L 'unit|release': the rest run under ASan below)"
  run_ctest release build -j1 -L 'unit|release' "$@"
fi

if [[ "${SLUICE_SKIP_ASAN:-0}" != 1 ]]; then
  step "Build (build-asan/, ASan + UBSan: unit tests, sluice, integration programs)"
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSLUICE_SANITIZE=ON
  cmake --build build-asan -j"$jobs" --target sluice_unit_tests sluice_service_test_programs

  # halt_on_error: the first report ends the process, with a non-zero exit code. The children
  # (sluice run) inherit these: their reports are found in their output by the test programs.
  # lsan.supp: libpqxx 6.4's leak on a lost connection (fault tests lose connections).
  # detect_stack_use_after_return: a pointer to a stack frame handed to a C library (a
  # librdkafka delivery opaque) and written to after the frame returned is an error.
  export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1}"
  export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
  export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$repo/tests/sinks/lsan.supp:print_suppressions=0}"

  step "Unit tests under ASan + UBSan (build-asan/, -L unit)"
  # format.check and the docs checks already ran in build/ (they need no sanitizer).
  run_ctest unit build-asan -j"$jobs" -L unit -E '^(format\.check|docs\..*)$'

  step "Integration and fault tests under ASan + UBSan (build-asan/, -L 'integration|fault')"
  # compose.config only validates docker-compose.yml: it ran in build/ (label release).
  run_ctest services build-asan -j1 -L 'integration|fault' -E '^(compose\.config|helm\..*|prometheus\.rules)$'
fi

if [[ "${SLUICE_SKIP_TSAN:-0}" != 1 ]]; then
  step "Build (build-tsan/, ThreadSanitizer: sluice, the tsan subset, one pipeline program)"
  cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSLUICE_TSAN=ON
  cmake --build build-tsan -j"$jobs" --target sluice sluice_tsan_tests e2e_datastream

  # TSAN_OPTIONS come with each test (SLUICE_TSAN_OPTIONS in CMakeLists.txt): the first race
  # ends the process, and a `sluice run` child's report is found in its output, as under ASan.
  step "ThreadSanitizer subset (build-tsan/, -L tsan)"
  run_ctest tsan build-tsan -j1 -L tsan
fi

if [[ "${SLUICE_SKIP_FUZZ:-0}" != 1 ]]; then
  step "Build (build-fuzz/, clang-14 libFuzzer targets)"
  cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_COMPILER=clang++-14 -DSLUICE_FUZZ=ON -DSLUICE_TESTS=OFF
  cmake --build build-fuzz -j"$jobs" --target sluice_fuzzers

  fuzz_seconds="${SLUICE_FUZZ_SECONDS:-60}"
  step "Fuzzing (${fuzz_seconds} s per target, ${jobs} at a time, from fuzz/corpus)"
  fuzz/scripts/run_bounded.sh "$fuzz_seconds" "$jobs" || {
    status=$?
    fuzz_failed=1
  }
fi

# The end of a long run is what gets read first: name the failed tests there again, with the
# last lines of what each printed (the whole output is above, from --output-on-failure).
summarize_failures() {
  local dir="$1" run="$2" failed="$1/Testing/failed-$2.log" name section
  printf '\nFailed in %s/ (%s):\n' "$dir" "$run"
  sed 's/^[0-9]*:/  /' "$failed"
  while IFS= read -r name; do
    name="${name#*:}"
    section="$(awk -v n="$name" '
      { t = "Testing: " n }
      length($0) >= length(t) && substr($0, length($0) - length(t) + 1) == t { on = 1 }
      on { print }
      on && index($0, "\"" n "\" end time") == 1 { exit }' \
      "$dir/Testing/log-$run.log")"
    printf '\n--- %s: its failed checks ---\n' "$name"
    grep -E -m 40 'ERROR|FATAL|Sanitizer|runtime error|Timeout|terminate|what\(\)' <<<"$section" || true
    printf -- '--- %s: its last lines ---\n' "$name"
    tail -n 25 <<<"$section"
  done <"$failed"
}

if ((status != 0)); then
  for run in "${failed_runs[@]}"; do
    # shellcheck disable=SC2086  # "dir name"
    summarize_failures $run
  done
  if [[ -n "${fuzz_failed:-}" ]]; then
    printf '\nFuzzing found something: its findings and how to reproduce them are above.\n'
  fi
  printf '\n==> FAILED (see the output above)\n'
fi
exit "$status"
