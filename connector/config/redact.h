#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sluice {

// What a secret prints as.
inline constexpr std::string_view redacted_text = "***";

// A libpq connection string fit for logs: the password of a URI's user info and every
// password= / sslpassword= value (keyword form, quoted or not, and URI query parameters)
// become ***. When unsure where a password ends, more is hidden rather than less.
//   postgresql://sluice:s3cret@db:5432/replica  ->  postgresql://sluice:***@db:5432/replica
//   host=db user=sluice password='s 3'          ->  host=db user=sluice password=***
std::string redact(std::string_view dsn);

// The passwords redact() hides in a DSN, as written there (a quoted keyword value also
// without its quotes). The loader records those libpq may quote in an error (a URI password
// it cannot percent-decode: "invalid percent-encoded token: \"%zz…\"") in config::secrets.
std::vector<std::string> dsn_passwords(std::string_view dsn);

// A URL fit for printing (a Schema Registry's, which may carry basic-auth user info): when any
// '@' follows "://", everything from there to the LAST '@' becomes ***, since a password may
// hold '/', '?' or '@'. Hides too much rather than too little: "https://u:p@h/x@y" ->
// "https://***@y".
//   https://svc:pa/ss@reg:8081/x  ->  https://***@reg:8081/x
std::string redact_url_user_info(std::string_view url);

// Any text fit for printing: every occurrence of a known secret value (config::secrets: what
// ${file:} references read, and environment values given to secret properties) becomes ***. Longer
// secrets first, so that one holding another is hidden whole; empty ones are ignored. For what
// sluice prints that may hold a configured value: logs, /status, `check`, error messages.
std::string redact_secrets(std::string_view text, std::span<const std::string> secrets);

// librdkafka properties whose values are secrets (its "sensitive" properties, plus any name
// holding "password" or "secret").
bool is_sensitive_kafka_property(std::string_view name);

}  // namespace sluice
