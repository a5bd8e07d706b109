#!/usr/bin/env bash
# Fetches Apicurio Registry (the Schema Registry the integration tests run, services/
# registry.sh) from Maven Central and unpacks it into integration/registry/app/. Idempotent:
# app/.stamp records the artifact it came from; when it matches, nothing is done (offline
# once fetched). Safe to run concurrently (flock). Maven's local repository caches the
# archive too, so a fresh checkout on a warm machine does not download it again.
#
# Environment:
#   SLUICE_REGISTRY_HOME  where to unpack (default: integration/registry/app)
#   SLUICE_MVN_ARGS       extra maven arguments, word-split (e.g. -Dmaven.repo.local=/tmp/m2)
#   MVN                   the maven command (default: mvn)
set -euo pipefail

artifact=io.apicurio:apicurio-registry-app:3.0.9:tar.gz:all
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
app="${SLUICE_REGISTRY_HOME:-$here/app}"
stamp="$app/.stamp"
mvn_bin="${MVN:-mvn}"

if [[ -f "$stamp" && "$(cat "$stamp")" == "$artifact" ]]; then
  exit 0
fi

work="$here/target"
mkdir -p "$work" "$(dirname "$app")"
exec 9>"$work/fetch.lock"
flock 9
if [[ -f "$stamp" && "$(cat "$stamp")" == "$artifact" ]]; then
  exit 0
fi

command -v "$mvn_bin" >/dev/null || {
  echo "fetch.sh: '$mvn_bin' not found; run integration/services/install-deps.sh" >&2
  exit 1
}

echo "fetch.sh: fetching $artifact from Maven Central into $app" >&2
tmp="$(mktemp -d "$work/app.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2086  # SLUICE_MVN_ARGS is meant to be word-split
"$mvn_bin" -q -B -Dstyle.color=never ${SLUICE_MVN_ARGS:-} dependency:copy \
  -Dartifact="$artifact" -DoutputDirectory="$tmp/download" 2>&1 \
  | sed -e 's/\x1b\[[0-9;]*m//g' -e '/^[[:space:]]*$/d' >&2
mkdir "$tmp/app"
tar -xzf "$tmp"/download/apicurio-registry-app-*.tar.gz -C "$tmp/app"
ls "$tmp"/app/apicurio-registry-app-*-runner.jar >/dev/null 2>&1 || {
  echo "fetch.sh: the archive holds no apicurio-registry-app runner jar" >&2
  exit 1
}
echo "$artifact" >"$tmp/app/.stamp"
rm -rf "$app"
mv "$tmp/app" "$app"
echo "fetch.sh: Apicurio Registry in $app ($(du -sh "$app" | cut -f1))" >&2
