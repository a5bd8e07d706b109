#!/usr/bin/env bash
# Throwaway TLS material for the secured listeners of the test services: one CA per run, and a
# server certificate from it for each service (Kafka's SASL_SSL listener, PostgreSQL's ssl=on),
# made with openssl. Certificates name 127.0.0.1 and localhost (subjectAltName), so that clients
# verify them fully (librdkafka's hostname check, libpq's sslmode=verify-full).
#
#   tls.sh server NAME   a fresh key and certificate for NAME, signed by the run's CA (made first
#                        when there is none); prints the folder holding them
#   tls.sh release NAME  deletes NAME's key and certificate; the CA goes with the last of them,
#                        so that the next run makes a new one
#   tls.sh lone-ca PATH  a CA certificate (PATH) that signed nothing of this run: for tests that
#                        a certificate from another CA is refused. Its key is not kept.
#
# Files in $SLUICE_RUN_DIR/tls/ (default <repo>/build/run/tls); keys are readable by their
# owner only (PostgreSQL, run as another user under root, gets its own copy: postgres.sh):
#   ca.crt, ca.key      the run's CA
#   NAME.crt, NAME.key  NAME's certificate (for 127.0.0.1 and localhost) and private key
#                       (PKCS#8 PEM, not encrypted)
#   NAME.pem            the key followed by the certificate (Kafka's PEM key store)
#
# Calls on one run dir are serialised (flock): the service fixtures may start concurrently.
set -euo pipefail

SERVICE_NAME=tls.sh
# shellcheck source=integration/services/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

RUN_DIR="$(sluice_run_dir)"
TLS_DIR="$RUN_DIR/tls"
DAYS=7

command -v openssl >/dev/null || die "openssl not found (run integration/services/install-deps.sh)"

new_key() { openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$1" 2>/dev/null; }

# new_ca CERT KEY SUBJECT: a self-signed CA certificate.
new_ca() {
  local cert="$1" key="$2" subject="$3"
  new_key "$key"
  openssl req -x509 -new -key "$key" -sha256 -days "$DAYS" -subj "$subject" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -out "$cert" 2>/dev/null || die "openssl could not make the CA $cert"
}

# A CA that expires within the hour (left by a run that was killed long ago) is made anew.
ensure_ca() {
  if [[ -f "$TLS_DIR/ca.crt" && -f "$TLS_DIR/ca.key" ]] \
    && openssl x509 -checkend 3600 -noout -in "$TLS_DIR/ca.crt" >/dev/null; then
    return 0
  fi
  new_ca "$TLS_DIR/ca.crt" "$TLS_DIR/ca.key" "/CN=sluice test CA $(date -u +%FT%TZ)"
  log "new CA $TLS_DIR/ca.crt"
}

cmd_server() {
  local name="$1" csr
  [[ "$name" =~ ^[a-z][a-z0-9_-]*$ ]] || die "NAME must be lower-case letters, digits, _ or -"
  ensure_ca
  csr="$TLS_DIR/$name.csr"
  new_key "$TLS_DIR/$name.key"
  openssl req -new -key "$TLS_DIR/$name.key" -subj "/CN=localhost" -out "$csr" 2>/dev/null \
    || die "openssl could not make a request for $name"
  # -copy_extensions is OpenSSL 3's; an extension file works on every version.
  printf '%s\n' "subjectAltName=IP:127.0.0.1,DNS:localhost" "basicConstraints=CA:FALSE" \
    "keyUsage=critical,digitalSignature,keyEncipherment" "extendedKeyUsage=serverAuth" \
    >"$TLS_DIR/$name.ext"
  openssl x509 -req -in "$csr" -CA "$TLS_DIR/ca.crt" -CAkey "$TLS_DIR/ca.key" -CAcreateserial \
    -days "$DAYS" -sha256 -extfile "$TLS_DIR/$name.ext" -out "$TLS_DIR/$name.crt" 2>/dev/null \
    || die "openssl could not sign the certificate of $name"
  rm -f "$csr" "$TLS_DIR/$name.ext"
  (umask 077 && cat "$TLS_DIR/$name.key" "$TLS_DIR/$name.crt" >"$TLS_DIR/$name.pem")
  echo "$TLS_DIR"
}

cmd_release() {
  local name="$1" left
  rm -f "$TLS_DIR/$name.crt" "$TLS_DIR/$name.key" "$TLS_DIR/$name.pem"
  left="$(find "$TLS_DIR" -maxdepth 1 -name '*.crt' ! -name ca.crt 2>/dev/null | wc -l)"
  if ((left == 0)); then
    rm -f "$TLS_DIR/ca.crt" "$TLS_DIR/ca.key" "$TLS_DIR/ca.srl"
  fi
}

cmd_lone_ca() {
  local path="$1" key
  key="$(mktemp "$TLS_DIR/lone-ca.XXXXXX")"
  new_ca "$path" "$key" "/CN=a CA that signed nothing $(date -u +%FT%TZ)"
  rm -f "$key"
}

[[ $# -eq 2 ]] || {
  echo "usage: $0 server NAME | release NAME | lone-ca PATH" >&2
  exit 2
}
mkdir -p "$TLS_DIR"
chmod 755 "$TLS_DIR"
exec 8>"$TLS_DIR/.lock"
flock 8
umask 022
case "$1" in
  server) cmd_server "$2" ;;
  release) cmd_release "$2" ;;
  lone-ca) cmd_lone_ca "$2" ;;
  *)
    echo "usage: $0 server NAME | release NAME | lone-ca PATH" >&2
    exit 2
    ;;
esac
