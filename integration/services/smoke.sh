#!/usr/bin/env bash
# CTest services.smoke: the harness works. The broker (fixture kafka) takes a 3-partition topic
# and delivers a keyed message through a consumer group; PostgreSQL (fixture postgres) answers as
# the superuser `sluice` in database `replica`.
set -euo pipefail

services="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
run_dir="${SLUICE_RUN_DIR:?SLUICE_RUN_DIR is not set}"
bootstrap="$(cat "$run_dir/kafka.bootstrap")"
dsn="$(cat "$run_dir/postgres.dsn")"
topic="smoke.$$.$RANDOM"

"$services/kafka.sh" topic "$topic" 3
printf 'k%d|message %d\n' 1 1 2 2 3 3 | kcat -P -b "$bootstrap" -t "$topic" -K '|'
got="$(timeout 30 kcat -C -b "$bootstrap" -G "$topic.group" -X auto.offset.reset=earliest \
  -e -q -f '%k=%s\n' "$topic" | sort)"
want="$(printf 'k1=message 1\nk2=message 2\nk3=message 3')"
[[ "$got" == "$want" ]] || {
  echo "smoke: consumed [$got], expected [$want]" >&2
  exit 1
}
partitions="$(kcat -L -b "$bootstrap" -t "$topic" | grep -c 'partition [0-9]*, leader')"
[[ "$partitions" == 3 ]] || {
  echo "smoke: $topic has $partitions partitions, expected 3" >&2
  exit 1
}

answer="$(psql -X -qAt -v ON_ERROR_STOP=1 "$dsn" -c \
  "SELECT current_user || ' ' || current_database() || ' ' || rolsuper::text
     FROM pg_roles WHERE rolname = current_user")"
[[ "$answer" == "sluice replica true" ]] || {
  echo "smoke: PostgreSQL answered [$answer]" >&2
  exit 1
}
echo "smoke: kafka $bootstrap and postgres $dsn work"
