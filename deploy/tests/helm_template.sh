#!/usr/bin/env bash
# helm.template: the chart renders with its defaults and with every option on, renders what
# each option promises, renders its NOTES, and refuses a config that sets metrics.listen itself (the chart owns
# it, so that the probes and Services cannot point elsewhere).
#
#   helm_template.sh HELM CHART
set -euo pipefail

helm="$1"
chart="$2"
failed=0
passed=0
# check WHAT COMMAND...: runs the command, counts and prints the outcome.
check() {
  if "${@:2}"; then
    echo "ok    $1"
    passed=$((passed + 1))
  else
    echo "FAIL  $1"
    failed=$((failed + 1))
  fi
}
render() { "$helm" template t "$chart" --namespace t "$@"; }
# has_all TEXT PATTERN...: every extended regex matches a line of TEXT.
has_all() {
  local text="$1" pattern
  for pattern in "${@:2}"; do
    grep -qE -- "$pattern" <<<"$text" || return 1
  done
}
lacks() { ! grep -qE -- "$2" <<<"$1"; }

defaults="$(render)"
check "defaults: no ServiceMonitor, no chart-made Secret" \
  lacks "$defaults" '^kind: (ServiceMonitor|Secret)$'
check "defaults: the Secret mounted is <release>-sluice-secrets" \
  has_all "$defaults" 'secretName: t-sluice-secrets$'
check "defaults: runs as non-root user 10001" \
  has_all "$defaults" 'runAsNonRoot: true$' 'runAsUser: 10001$'
check "defaults: terminationGracePeriodSeconds 120" \
  has_all "$defaults" 'terminationGracePeriodSeconds: 120$'

options="$(render --set serviceMonitor.enabled=true --set replicaCount=3 \
  --set-string secrets.files.pg-password=p --set image.tag=1.2.3 --set port=9500 \
  --set secrets.name=mine)"
check "options: a ServiceMonitor on the metrics Service's port" \
  has_all "$options" '^kind: ServiceMonitor$' 'port: http-metrics$'
check "options: the chart makes the Secret it mounts" \
  has_all "$options" '^kind: Secret$' '^  name: mine$' 'secretName: mine$'
check "options: 3 replicas, image sluice:1.2.3" \
  has_all "$options" 'replicas: 3$' 'image: "sluice:1.2.3"$'
check "options: port 9500 in metrics.listen and the container" \
  has_all "$options" 'listen: 0.0.0.0:9500$' 'containerPort: 9500$'

# NOTES.txt is rendered by install only (--dry-run=client: no cluster is asked).
notes="$("$helm" install t "$chart" --namespace t --dry-run=client)"
check "NOTES.txt: the admin Service's resume call" \
  has_all "$notes" 'svc/t-sluice-admin 8083' '/connectors/orders-replica/resume'

if refused="$(render --set config.metrics.listen=0.0.0.0:1 2>&1)"; then
  check "a config with metrics.listen is refused" false
else
  check "a config with metrics.listen is refused, saying why" \
    has_all "$refused" 'metrics.listen is set by the chart'
fi

echo
echo "helm.template: $passed checks passed, $failed failed"
((failed == 0))
