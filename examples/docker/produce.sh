#!/usr/bin/env bash
# docker-compose.yml's sample producer: waits for the broker, then produces the demo's Datastream
# CDC events (examples/datastream/customers.sh) to $TOPIC, keyed by primary key.
set -euo pipefail

bootstrap="${KAFKA_BOOTSTRAP:-kafka:9092}"
topic="${TOPIC:-demo.cdc}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

for _ in $(seq 60); do
  kcat -L -b "$bootstrap" -t "$topic" -m 3 2>/dev/null | grep -q 'partition 0, leader' && break
  sleep 1
done
bash "$here/../datastream/customers.sh" | kcat -P -b "$bootstrap" -t "$topic" -K '|'
echo "produced $(bash "$here/../datastream/customers.sh" --count) events to $topic on $bootstrap"
