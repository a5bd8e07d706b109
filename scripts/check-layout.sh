#!/usr/bin/env bash
# The layout check (ctest layout.includes): which folder of connector/ (and of sinks/postgres/)
# may include which, as docs/architecture.md draws the house. A stage never includes a later
# stage, prepare/ and
# apply/ never include each other (the batch they hand over is in base/), and the basement
# (base/) includes nothing above it; nothing in connector/ includes sinks/postgres/ (it names
# the target through the seam, sinks/*.h). A new arrow is either allowed here, with a reason in
# docs/architecture.md, or cut.
#
#   scripts/check-layout.sh SOURCE_DIR
set -euo pipefail
cd "$1"

declare -A allowed=(
  [config]="config"
  [base]="config base"
  [metrics]="base metrics"
  [http]="base metrics http"
  [registry]="config base registry"
  [source]="config base source"
  [prepare]="config base metrics registry source prepare"
  [apply]="config base metrics http source apply"
  [check]="config base registry source check"
  [drive]="config base metrics http registry source prepare apply drive"
  [control]="config base metrics http source drive control"
  [cli]="config base metrics http registry source prepare apply drive check control cli"
)

failed=0
for dir in connector/*/; do
  folder=$(basename "$dir")
  if [[ -z "${allowed[$folder]+x}" ]]; then
    echo "connector/$folder/: a folder docs/architecture.md does not place (add it to scripts/check-layout.sh)"
    failed=1
    continue
  fi
  while IFS=: read -r file target; do
    to=${target#connector/}
    to=${to%%/*}
    if [[ " ${allowed[$folder]} " != *" $to "* ]]; then
      echo "$file includes $target: connector/$folder/ may include only: ${allowed[$folder]}"
      failed=1
    fi
  done < <(grep -ro '#include "connector/[^"]*"' "$dir" | sed 's/#include "\(.*\)"/\1/')
done
# connector/ reaches the target through the seam only (sinks/*.h: target-neutral roles,
# chosen by sinks/target_factory.h): an include of a target's folder would tie it to one target.
while IFS= read -r hit; do
  echo "$hit: connector/ includes sinks/*.h, the seam, never a target's folder"
  failed=1
done < <(grep -rnE '#include "sinks/(postgres|mariadb)/' connector || true)
# Each target's folder (sinks/postgres/, sinks/mariadb/) in floors: pure SQL text (sql/) at the
# bottom, then the connection (session/), then planning (plan/), then writing and state
# (write/, state/), which never include each other; the roles at its root may include them
# all. A target never includes another target's folder.
declare -A sink_allowed=(
  [sql]="sql"
  [session]="sql session"
  [plan]="sql session plan"
  [write]="sql session plan write"
  [state]="sql session plan state"
)
for sink in postgres mariadb; do
  [[ -d sinks/$sink ]] || continue
  other=$([[ $sink == postgres ]] && echo mariadb || echo postgres)
  while IFS= read -r hit; do
    echo "$hit: sinks/$sink/ includes another target's folder"
    failed=1
  done < <(grep -rn "#include \"sinks/$other/" "sinks/$sink" || true)
  for dir in sinks/$sink/*/; do
    [[ -d "$dir" ]] || continue
    folder=$(basename "$dir")
    if [[ -z "${sink_allowed[$folder]+x}" ]]; then
      echo "sinks/$sink/$folder/: a floor docs/architecture.md does not place (add it to scripts/check-layout.sh)"
      failed=1
      continue
    fi
    while IFS=: read -r file target; do
      to=${target#sinks/$sink/}
      [[ "$to" == */* ]] || { echo "$file includes $target: a floor never includes the roles above it"; failed=1; continue; }
      to=${to%%/*}
      if [[ " ${sink_allowed[$folder]} " != *" $to "* ]]; then
        echo "$file includes $target: sinks/$sink/$folder/ may include only: ${sink_allowed[$folder]}"
        failed=1
      fi
    done < <(grep -o "#include \"sinks/$sink/[^\"]*\"" "$dir"* | sed 's/#include "\(.*\)"/\1/')
  done
done
# Nothing but folders in connector/ (a file at its root belongs to no floor).
for f in connector/*; do
  [[ -d "$f" || "$(basename "$f")" == CMakeLists.txt ]] && continue
  echo "$f: at connector/'s root, on no floor"
  failed=1
done
[[ $failed == 0 ]] && echo "layout: every include of connector/ and of each target's folder points down, and none from connector/ into a target's folder"
exit $failed
