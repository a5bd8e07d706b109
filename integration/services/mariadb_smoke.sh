#!/usr/bin/env bash
# CTest services.mariadb.smoke: the MariaDB fixture works. `sluice` logs in over TCP on the DSN's
# port with the DSN's password and lands in `replica`; `sluice_tls` logs in only over TLS, the
# server's certificate verified against the run's CA (mariadb.secure.dsn).
set -euo pipefail

run_dir="${SLUICE_RUN_DIR:?SLUICE_RUN_DIR is not set}"
dsn="$(cat "$run_dir/mariadb.dsn")"
secure_dsn="$(cat "$run_dir/mariadb.secure.dsn")"

# mariadb://USER:PASSWORD@HOST:PORT/DATABASE[?...] -> the five parts, one per line.
dsn_parts() {
  sed -E 's#^mariadb://([^:]+):([^@]+)@([^:/]+):([0-9]+)/([^?]*).*$#\1\n\2\n\3\n\4\n\5#' <<<"$1"
}
mapfile -t parts < <(dsn_parts "$dsn")
((${#parts[@]} == 5)) || {
  echo "smoke: mariadb.dsn is not mariadb://user:password@host:port/database" >&2
  exit 1
}
# The password travels in the environment, not on a command line that ps shows.
answer="$(MYSQL_PWD="${parts[1]}" mariadb --no-defaults -h "${parts[2]}" -P "${parts[3]}" \
  -u "${parts[0]}" -D "${parts[4]}" -N -B \
  -e "SELECT CONCAT_WS(' ', VERSION() LIKE '10.%-MariaDB%', CURRENT_USER(), DATABASE(),
                       @@local_infile, @@max_allowed_packet, @@character_set_server)")"
[[ "$answer" == "1 sluice@127.0.0.1 replica ON 67108864 utf8mb4" ]] || {
  echo "smoke: MariaDB answered [$answer]" >&2
  exit 1
}

mapfile -t secure < <(dsn_parts "$secure_dsn")
ca="$(sed -E 's#.*[?&]ssl-ca=([^&]*).*#\1#' <<<"$secure_dsn")"
cipher="$(MYSQL_PWD="${secure[1]}" mariadb --no-defaults -h "${secure[2]}" -P "${secure[3]}" \
  -u "${secure[0]}" -D "${secure[4]}" --ssl --ssl-ca="$ca" --ssl-verify-server-cert -N -B \
  -e "SHOW SESSION STATUS LIKE 'Ssl_cipher'" | cut -f2)"
[[ -n "$cipher" ]] || {
  echo "smoke: ${secure[0]} logged in without TLS" >&2
  exit 1
}
if MYSQL_PWD="${secure[1]}" mariadb --no-defaults -h "${secure[2]}" -P "${secure[3]}" \
  -u "${secure[0]}" --skip-ssl -e 'SELECT 1' >/dev/null 2>&1; then
  echo "smoke: ${secure[0]} logged in without TLS; the server should refuse it" >&2
  exit 1
fi
echo "smoke: mariadb at ${parts[2]}:${parts[3]} works (TLS: $cipher)"
