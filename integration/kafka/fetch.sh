#!/usr/bin/env bash
# Fetches the Apache Kafka broker jars listed in pom.xml (Maven Central) into
# integration/kafka/lib/. Idempotent: lib/.stamp records the sha256 of the pom the jars
# came from; when it matches, nothing is done. Safe to run concurrently (flock).
#
# Environment:
#   SLUICE_KAFKA_LIB   where to put the jars (default: integration/kafka/lib)
#   SLUICE_MVN_ARGS    extra maven arguments, word-split (e.g. -Dmaven.repo.local=/tmp/m2)
#   MVN                the maven command (default: mvn); MAVEN_OPTS is honoured by maven
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
pom="$here/pom.xml"
lib="${SLUICE_KAFKA_LIB:-$here/lib}"
stamp="$lib/.stamp"
mvn_bin="${MVN:-mvn}"

want="$(sha256sum "$pom" | cut -d' ' -f1)"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
  exit 0
fi

# The lock and the download folder live in target/, which git ignores.
work="$here/target"
mkdir -p "$work" "$(dirname "$lib")"
exec 9>"$work/fetch.lock"
flock 9
# Another process may have finished the fetch while this one waited for the lock.
if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
  exit 0
fi

command -v "$mvn_bin" >/dev/null || {
  echo "fetch.sh: '$mvn_bin' not found; run integration/services/install-deps.sh" >&2
  exit 1
}

echo "fetch.sh: fetching the Kafka broker jars from Maven Central into $lib" >&2
tmp="$(mktemp -d "$work/lib.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2086  # SLUICE_MVN_ARGS is meant to be word-split
# Maven 3.8 prints bare colour resets even in batch mode: strip them (pipefail keeps its status).
"$mvn_bin" -q -B -Dstyle.color=never -f "$pom" ${SLUICE_MVN_ARGS:-} dependency:copy-dependencies \
  -DoutputDirectory="$tmp" -DincludeScope=runtime 2>&1 \
  | sed -e 's/\x1b\[[0-9;]*m//g' -e '/^[[:space:]]*$/d' >&2
ls "$tmp"/kafka_2.13-*.jar >/dev/null 2>&1 || {
  echo "fetch.sh: maven finished but no kafka_2.13 jar in $tmp" >&2
  exit 1
}
echo "$want" >"$tmp/.stamp"
chmod 755 "$tmp"
rm -rf "$lib"
mv "$tmp" "$lib"
trap - EXIT
echo "fetch.sh: $(ls "$lib"/*.jar | wc -l) jars in $lib" >&2
