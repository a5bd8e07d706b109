#!/usr/bin/env bash
# Fetches Apicurio Registry (the Schema Registry the integration tests run, services/
# registry.sh) from Maven Central and unpacks it into integration/registry/app/. Idempotent:
# app/.stamp records the artifact it came from; when it matches, nothing is done (offline
# once fetched). Safe to run concurrently: a lock on the install path itself ("$app.lock"),
# so two checkouts sharing one SLUICE_REGISTRY_HOME exclude each other too; the new tree is
# unpacked next to it and renamed into place (mv -T). Maven runs from an empty scratch
# directory, so a pom.xml in the caller's directory never becomes its project. Maven's local
# repository caches the archive too, so a fresh checkout on a warm machine does not download
# it again.
#
# The default app/ is replaced when its stamp names another artifact. A SLUICE_REGISTRY_HOME
# given by the caller is never deleted: when it holds anything without the matching stamp,
# fetch.sh refuses (exit 1) and says so; an empty or missing one is filled.
#
# Environment:
#   SLUICE_REGISTRY_HOME  where to unpack (default: integration/registry/app); never deleted
#   SLUICE_MVN_ARGS       extra maven arguments, word-split (e.g. -Dmaven.repo.local=/tmp/m2)
#   MVN                   the maven command (default: mvn)
set -euo pipefail

artifact=io.apicurio:apicurio-registry-app:3.0.9:tar.gz:all
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
app="${SLUICE_REGISTRY_HOME:-$here/app}"
# Absolute, without trailing slashes: "$app.lock" and "$app.new.*" are its siblings.
[[ "$app" == /* ]] || app="$PWD/$app"
while [[ "$app" == */ && "$app" != / ]]; do app="${app%/}"; done
stamp="$app/.stamp"
mvn_bin="${MVN:-mvn}"

matches() {
  [[ -f "$stamp" && "$(cat "$stamp")" == "$artifact" ]]
}

if matches; then
  exit 0
fi

mkdir -p "$(dirname "$app")"
exec 9>"$app.lock"
flock 9
# Another process may have finished the fetch while this one waited for the lock.
if matches; then
  exit 0
fi

if [[ -n "${SLUICE_REGISTRY_HOME:-}" && -d "$app" ]] &&
  [[ -n "$(ls -A "$app" 2>/dev/null)" ]]; then
  echo "fetch.sh: SLUICE_REGISTRY_HOME=$app is not empty and its .stamp does not name" \
    "$artifact (it holds: $(cat "$stamp" 2>/dev/null || echo "no .stamp")); not touching it." \
    "Empty it, unset SLUICE_REGISTRY_HOME, or point it at an empty or missing directory." >&2
  exit 1
fi

command -v "$mvn_bin" >/dev/null || {
  echo "fetch.sh: '$mvn_bin' not found; run integration/services/install-deps.sh" >&2
  exit 1
}

echo "fetch.sh: fetching $artifact from Maven Central into $app" >&2
# Next to the install path: the final rename stays on one file system.
work="$(mktemp -d "$app.new.XXXXXX")"
old=""
trap 'rm -rf "$work" ${old:+"$old"}' EXIT
mkdir "$work/download" "$work/app"
(
  # A scratch directory: no pom.xml, .mvn/ or maven.config of the caller's applies.
  cd "$work/download"
  # shellcheck disable=SC2086  # SLUICE_MVN_ARGS is meant to be word-split
  "$mvn_bin" -q -B -Dstyle.color=never ${SLUICE_MVN_ARGS:-} dependency:copy \
    -Dartifact="$artifact" -DoutputDirectory="$work/download" 2>&1 \
    | sed -e 's/\x1b\[[0-9;]*m//g' -e '/^[[:space:]]*$/d' >&2
)
tar -xzf "$work"/download/apicurio-registry-app-*.tar.gz -C "$work/app"
ls "$work"/app/apicurio-registry-app-*-runner.jar >/dev/null 2>&1 || {
  echo "fetch.sh: the archive holds no apicurio-registry-app runner jar" >&2
  exit 1
}
echo "$artifact" >"$work/app/.stamp"
if [[ -e "$app" ]]; then
  # Only the default app/ (or an empty SLUICE_REGISTRY_HOME) gets here: moved aside, then gone.
  old="$(mktemp -u "$app.old.XXXXXX")"
  mv -T "$app" "$old"
fi
mv -T "$work/app" "$app"
echo "fetch.sh: Apicurio Registry in $app ($(du -sh "$app" | cut -f1))" >&2
