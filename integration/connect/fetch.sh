#!/usr/bin/env bash
# Fetches the Kafka Connect worker and Debezium's JDBC sink (the reactor pom.xml, worker/ and
# jdbc-sink/; Maven Central) into integration/connect/lib/:
#   lib/worker/                         the worker's class path
#   lib/plugins/debezium-jdbc-sink/     the connector, its plugin.path entry
# Idempotent: lib/.stamp records the sha256 of the three poms the jars came from; when it
# matches, nothing is done. Safe to run concurrently (flock). Maven's local repository keeps
# the jars too, so a fresh clone on a warm machine copies them without downloading.
#
# Environment:
#   SLUICE_CONNECT_LIB  where to put the jars (default: integration/connect/lib)
#   SLUICE_MVN_ARGS     extra maven arguments, word-split (e.g. -Dmaven.repo.local=/tmp/m2)
#   MVN                 the maven command (default: mvn); MAVEN_OPTS is honoured by maven
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
lib="${SLUICE_CONNECT_LIB:-$here/lib}"
[[ "$lib" == /* ]] || lib="$PWD/$lib"
stamp="$lib/.stamp"
mvn_bin="${MVN:-mvn}"

want="$(cat "$here/pom.xml" "$here/worker/pom.xml" "$here/jdbc-sink/pom.xml" | sha256sum |
  cut -d' ' -f1)"
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

echo "fetch.sh: fetching Kafka Connect and Debezium's JDBC sink from Maven Central into $lib" >&2
started=$SECONDS
tmp="$(mktemp -d "$work/lib.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
# Each module copies into ${connect.lib}/<its folder> (see pom.xml).
# shellcheck disable=SC2086  # SLUICE_MVN_ARGS is meant to be word-split
# Maven 3.8 prints bare colour resets even in batch mode: strip them (pipefail keeps its status).
"$mvn_bin" -q -B -Dstyle.color=never -f "$here/pom.xml" ${SLUICE_MVN_ARGS:-} \
  dependency:copy-dependencies -Dconnect.lib="$tmp" 2>&1 |
  sed -e 's/\x1b\[[0-9;]*m//g' -e '/^[[:space:]]*$/d' >&2
for jar in worker/connect-runtime-*.jar plugins/debezium-jdbc-sink/debezium-connector-jdbc-*.jar; do
  compgen -G "$tmp/$jar" >/dev/null || {
    echo "fetch.sh: maven finished but $tmp holds no $jar" >&2
    exit 1
  }
done
echo "$want" >"$tmp/.stamp"
chmod 755 "$tmp"
rm -rf "$lib"
mv "$tmp" "$lib"
trap - EXIT
echo "fetch.sh: $(find "$lib" -name '*.jar' | wc -l) jars ($(du -sh "$lib" | cut -f1)) in $lib," \
  "$((SECONDS - started)) s" >&2
