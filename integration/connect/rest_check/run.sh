#!/usr/bin/env bash
# Runs RestCheck (the Java sources beside this script) on Kafka Connect's class path:
#   run.sh --self-test                 the checker on canned answers (no service)
#   run.sh --worker URL ... --topic T  a worker against sluice (RestCheck.java says which flags)
#   run.sh --compile-only              just bring the classes up to date
# The jars come from integration/connect/fetch.sh (a no-op once fetched). The classes live in
# $SLUICE_RUN_DIR/rest_check/ (default <repo>/build/run) and are recompiled with javac when the
# sources or the jars changed (a sha256 of both, so a checkout's timestamps do not matter).
# Safe to run concurrently (flock).
#
# Environment: SLUICE_RUN_DIR, SLUICE_CONNECT_LIB (default integration/connect/lib),
# JAVA / JAVAC (default java / javac).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
lib="${SLUICE_CONNECT_LIB:-$here/../lib}"
out="${SLUICE_RUN_DIR:-$repo/build/run}/rest_check"
java_bin="${JAVA:-java}"
javac_bin="${JAVAC:-javac}"

SLUICE_CONNECT_LIB="$lib" "$here/../fetch.sh"
command -v "$javac_bin" >/dev/null || {
  echo "rest_check: '$javac_bin' not found (install openjdk-17-jdk-headless)" >&2
  exit 2
}

mkdir -p "$out"
want="$(cat "$here"/*.java "$lib/.stamp" | sha256sum | cut -d' ' -f1)"
if [[ "$(cat "$out/classes.stamp" 2>/dev/null)" != "$want" ]]; then
  exec 9>"$out/compile.lock"
  flock 9
  # Another run may have compiled them while this one waited.
  if [[ "$(cat "$out/classes.stamp" 2>/dev/null)" != "$want" ]]; then
    started=$(date +%s%N)
    tmp="$(mktemp -d "$out/classes.XXXXXX")"
    "$javac_bin" -Xlint:all -Werror -d "$tmp" -cp "$lib/worker/*" "$here"/*.java
    rm -rf "$out/classes"
    mv "$tmp" "$out/classes"
    echo "$want" >"$out/classes.stamp"
    echo "rest_check: compiled in $((($(date +%s%N) - started) / 1000000)) ms into $out/classes" >&2
  fi
  exec 9>&-
fi

[[ "${1:-}" == "--compile-only" ]] && exit 0
# A short-lived client: C1 only and the serial collector start fastest.
exec "$java_bin" -XX:TieredStopAtLevel=1 -XX:+UseSerialGC \
  -cp "$out/classes:$lib/worker/*" RestCheck "$@"
