#!/usr/bin/env bash
# Installs the one helm the chart tests use (deploy/CMakeLists.txt: helm.lint, helm.template,
# helm.probes) and prints its path on stdout; everything else goes to stderr.
#
# helm v4 is built from its Go module (`go install`), pinned below: Debian 12 has no helm
# package, and a prebuilt release binary is a download outside the package registries CI can
# reach. The build goes to a folder named after the version under the user's cache, outside
# the work tree, so that a fresh clone on a machine that already built it finds it again
# (warm: nothing is built); a cold build takes minutes and prints how long it took.
#
# It also makes sure the deploy checks' YAML parser (Debian's python3-yaml) is importable:
# helm.probes and prometheus.rules are Python.
#
# Environment:
#   SLUICE_TOOLS_DIR   where tools are kept (default: ~/.cache/sluice)
#   GO                 the go command (default: go on PATH, else /usr/local/go/bin/go)
# Safe to run concurrently (flock).
set -euo pipefail

helm_version=v4.3.2
tools="${SLUICE_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/sluice}"
dir="$tools/helm-$helm_version"
helm="$dir/helm"

say() { echo "install-helm.sh: $*" >&2; }

ensure_pyyaml() {
  command -v python3 >/dev/null && python3 -c 'import yaml' 2>/dev/null && return 0
  say "installing python3-yaml (helm.probes and prometheus.rules read YAML with it)"
  local sudo=()
  [[ $EUID -eq 0 ]] || sudo=(sudo)
  "${sudo[@]}" apt-get update -q >&2
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    python3 python3-yaml >&2
  # A python3 first on PATH that is not Debian's (pyenv, a venv) does not see the package.
  python3 -c 'import yaml' 2>/dev/null || {
    say "$(command -v python3) still cannot import yaml: give it PyYAML"
    exit 1
  }
}

built() { [[ -x "$helm" ]] && "$helm" version >/dev/null 2>&1; }

ensure_pyyaml
if built; then
  echo "$helm"
  exit 0
fi

mkdir -p "$dir"
exec 9>"$dir/.lock"
flock 9
# Another run may have finished the build while this one waited for the lock.
if built; then
  echo "$helm"
  exit 0
fi

go_bin="${GO:-$(command -v go || echo /usr/local/go/bin/go)}"
[[ -x "$go_bin" ]] || {
  say "no go command (GO, PATH or /usr/local/go/bin/go): it builds helm"
  exit 1
}

# Into a scratch folder first, then renamed: an interrupted build never leaves a helm behind
# that `built` would take for a whole one. GOTOOLCHAIN=local: build with the Go that is
# here, never fetch another toolchain.
tmp="$(mktemp -d "$dir/build.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
say "building helm $helm_version from its Go module with $("$go_bin" version | cut -d' ' -f3)"
started=$SECONDS
GOBIN="$tmp" GOTOOLCHAIN=local GOFLAGS="${GOFLAGS:-} -trimpath" \
  "$go_bin" install "helm.sh/helm/v4/cmd/helm@$helm_version" >&2
mv -f "$tmp/helm" "$helm"
say "built $helm in $((SECONDS - started)) s"
built || {
  say "$helm was built but does not run"
  exit 1
}
echo "$helm"
