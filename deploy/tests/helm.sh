#!/usr/bin/env bash
# Runs the pinned helm (integration/services/install-helm.sh installs it when missing):
#   helm.sh ARGS...         e.g. helm.sh lint --strict deploy/helm/sluice
#   helm.sh --exec CMD ...  runs CMD with the helm's path as its first argument
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
helm="$("$here/../../integration/services/install-helm.sh")"
if [[ "${1:-}" == --exec ]]; then
  shift
  exec "$1" "$helm" "${@:2}"
fi
exec "$helm" "$@"
