#!/usr/bin/env bash
# Sample Google Datastream CDC events (PostgreSQL source, JSON) for a table public.customers:
# 10 inserts, 5 updates (one row updated twice), 2 deletes — 17 events, 8 rows in the end.
# Used by scripts/demo.sh and by the docker-compose producer (examples/docker/produce.sh).
#
#   customers.sh              prints one "KEY|JSON" line per event, in source order (kcat -K '|')
#   customers.sh --expected   prints the final rows as "id|name|email|balance", by id
#   customers.sh --count      prints the number of events
#
# The key is the primary key (id), so every version of a row lands on one partition.
# Timestamps are "now" minus a minute, one second apart (SLUICE_DEMO_BASE_MS overrides the first
# event's epoch milliseconds, for reproducible output). LSNs rise; each event is its own
# transaction.
set -euo pipefail

# Rows as they are inserted: id|name|email|balance
inserts=(
  "1|Ada Lovelace|ada@example.com|1250.75"
  "2|Alan Turing|alan@example.com|310.45"
  "3|Grace Hopper|grace@example.com|8870.15"
  "4|Edsger Dijkstra|edsger@example.com|42.99"
  "5|Barbara Liskov|barbara@example.com|1999.95"
  "6|Donald Knuth|don@example.com|256.64"
  "7|Margaret Hamilton|margaret@example.com|7300.21"
  "8|Ken Thompson|ken@example.com|640.05"
  "9|Frances Allen|frances@example.com|515.33"
  "10|John Backus|john@example.com|1957.11"
)
# Later changes, in source order: OP|id|name|email|balance (full row images, as Datastream sends).
changes=(
  "UPDATE|2|Alan Turing|alan@example.com|410.45"
  "UPDATE|3|Grace Hopper|grace.hopper@example.org|8870.15"
  "UPDATE|5|Barbara Liskov|barbara@example.com|1899.95"
  "DELETE|4|Edsger Dijkstra|edsger@example.com|42.99"
  "UPDATE|7|Margaret Hamilton|margaret@example.com|7450.71"
  "UPDATE|3|Grace Hopper|grace.hopper@example.org|9120.15"
  "DELETE|9|Frances Allen|frances@example.com|515.33"
)

events=()
for row in "${inserts[@]}"; do events+=("INSERT|$row"); done
events+=("${changes[@]}")

case "${1:-}" in
  --count)
    echo "${#events[@]}"
    exit 0
    ;;
  --expected)
    declare -A final=()
    for event in "${events[@]}"; do
      IFS='|' read -r op id name email balance <<<"$event"
      if [[ "$op" == DELETE ]]; then
        unset "final[$id]"
      else
        final[$id]="$id|$name|$email|$balance"
      fi
    done
    for id in $(printf '%s\n' "${!final[@]}" | sort -n); do echo "${final[$id]}"; done
    exit 0
    ;;
  "") ;;
  *)
    echo "usage: $0 [--expected|--count]" >&2
    exit 2
    ;;
esac

iso_ms() { # epoch milliseconds -> 2026-01-02T03:04:05.678Z
  printf '%s.%03dZ' "$(date -u -d "@$(($1 / 1000))" +%Y-%m-%dT%H:%M:%S)" $(($1 % 1000))
}

uuid() {
  if [[ -r /proc/sys/kernel/random/uuid ]]; then
    cat /proc/sys/kernel/random/uuid
  else
    od -An -N16 -tx1 /dev/urandom | tr -d ' \n' \
      | sed -E 's/(.{8})(.{4})(.{4})(.{4})(.{12})/\1-\2-\3-\4-\5/'
  fi
}

base_ms="${SLUICE_DEMO_BASE_MS:-$(($(date +%s) * 1000 - 60000))}"
lsn=$((0x1A2B3C00))
i=0
for event in "${events[@]}"; do
  IFS='|' read -r op id name email balance <<<"$event"
  source_ms=$((base_ms + i * 1000 + 137))
  read_ms=$((source_ms + 450))
  lsn=$((lsn + 0x2A8 + i * 8))
  lsn_text="$(printf '%X/%X' $((lsn >> 32)) $((lsn & 0xFFFFFFFF)))"
  source_ts="$(iso_ms "$source_ms")"
  deleted=false
  [[ "$op" == DELETE ]] && deleted=true
  printf '%s|{"uuid":"%s","read_timestamp":"%s","source_timestamp":"%s","object":"public_customers","read_method":"postgresql-cdc","stream_name":"projects/sluice-demo/locations/local/streams/pg-to-kafka","schema_key":"9f2c1e0b7d4a6c3e5b8a1d2f4e6c8a0b1d3f5e7a","sort_keys":[%d,"%s"],"source_metadata":{"schema":"public","table":"customers","is_deleted":%s,"change_type":"%s","primary_keys":["id"],"lsn":"%s","tx_id":"%d"},"payload":{"id":%d,"name":"%s","email":"%s","balance":%s,"updated_at":"%s"}}\n' \
    "$id" "$(uuid)" "$(iso_ms "$read_ms")" "$source_ts" "$source_ms" "$lsn_text" \
    "$deleted" "$op" "$lsn_text" $((48210 + i)) "$id" "$name" "$email" "$balance" "$source_ts"
  i=$((i + 1))
done
