#!/usr/bin/env bash
# Installs everything sluice needs to build, test and run its demo on a fresh Debian 12
# machine, then fetches the Kafka broker jars (integration/kafka/fetch.sh), the Schema
# Registry the tests run (integration/registry/fetch.sh) and the Kafka Connect worker with
# Debezium's JDBC sink (integration/connect/fetch.sh), all from Maven Central through maven.
#
# Warm runs are fast: when dpkg-query reports every package installed, apt is not touched.
# Runs as root (CI) or through sudo.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"

packages=(
  # build
  build-essential cmake ninja-build pkg-config git
  librdkafka-dev libpqxx-dev libpq-dev libsimdjson-dev libyaml-cpp-dev doctest-dev
  prometheus-cpp-dev libcivetweb-dev libjemalloc-dev
  # the MariaDB target (sinks/mariadb/): MariaDB Connector/C
  libmariadb-dev
  # SHA-256 of cut dead letters (sinks/plan/digest.cc): OpenSSL's libcrypto
  libssl-dev
  # the Schema Registry client (connector/registry/registry_http.cc)
  libcurl4-openssl-dev
  # Datastream Avro object containers (schemas/avro/) and their deflate and snappy codecs
  libavro-dev zlib1g-dev libsnappy-dev
  # the command line (connector/cli/command_line.cc), header-only
  libcli11-dev
  # topics.regex matched in linear time (connector/config/topic_regex.cc)
  libre2-dev
  # source.timezone IANA names: date/tz (libdate-tz3 comes with the -dev package; named for
  # the runtime) over the system time zone database, which the unit tests read
  libhowardhinnant-date-dev libdate-tz3 tzdata
  # format check, sanitizers; the fuzzers (scripts/test.sh builds them with clang++-14; its
  # libFuzzer, in libclang-rt-14-dev, is only a recommendation of clang-14, hence named here)
  clang-format clang-14 libclang-rt-14-dev
  # services: PostgreSQL 15 (postgres.sh uses /usr/lib/postgresql/15/bin), Kafka and Kafka
  # Connect on Java 17, their jars fetched by maven
  postgresql-15 postgresql-client-15 kcat openjdk-17-jre-headless maven ca-certificates
  # MariaDB 10.11 for the MariaDB target's tests (services/mariadb.sh: mariadb-install-db,
  # mariadbd, the mariadb client)
  mariadb-server mariadb-client
  # Connect REST parity (integration/connect/rest_parity_test.sh): javac for its checker
  # against Connect's own classes, jq for the fixture lines and the worker's answers
  openjdk-17-jdk-headless jq
  # the services' throwaway CA and certificates (services/tls.sh)
  openssl
  # the scripts themselves: pgrep/ps, ss, curl (demo metrics), flock/setsid/runuser, useradd
  procps iproute2 curl util-linux passwd
  # docker-compose.yml validation (no engine needed)
  docker-compose
)

missing=()
for pkg in "${packages[@]}"; do
  status="$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)"
  [[ "$status" == installed ]] || missing+=("$pkg")
done

if ((${#missing[@]} > 0)); then
  echo "install-deps.sh: installing ${missing[*]}" >&2
  sudo=()
  if [[ $EUID -ne 0 ]]; then
    command -v sudo >/dev/null || {
      echo "install-deps.sh: not root and no sudo; install as root: ${missing[*]}" >&2
      exit 1
    }
    sudo=(sudo)
  fi
  # Keep package scripts from starting services (Debian's postgresql would start its own
  # cluster on 5432, mariadb-server its server on 3306): a policy-rc.d that forbids it, only for
  # the time of the install.
  policy=/usr/sbin/policy-rc.d
  added_policy=0
  if [[ ! -e "$policy" ]]; then
    printf '#!/bin/sh\nexit 101\n' | "${sudo[@]}" tee "$policy" >/dev/null
    "${sudo[@]}" chmod 755 "$policy"
    added_policy=1
  fi
  restore_policy() { ((added_policy == 0)) || "${sudo[@]}" rm -f "$policy"; }
  trap restore_policy EXIT
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -q
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    "${missing[@]}"
  restore_policy
  trap - EXIT
fi

"$repo/integration/kafka/fetch.sh"
"$repo/integration/registry/fetch.sh"
"$repo/integration/connect/fetch.sh"
