#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

namespace sluice {

// How sluice reaches a Schema Registry over HTTP(S).
struct registry_http_options {
  std::string user_info;  // "user:password" for basic authentication; "": none. A secret.
  std::string ca_file;    // PEM CAs; "": the system's. Peer and host verification are always on.
  std::string certificate_file;  // PEM client certificate; "": none
  std::string key_file;          // its PEM private key
  std::chrono::milliseconds timeout{10'000};
  // Answers with a larger body are not a schema sluice can use: the transfer is cut short and
  // the registry refused (registry_http_result::too_large). An option for tests.
  std::size_t max_body_bytes = 64 * 1024 * 1024;
};

// One HTTP exchange: `status` 0 when there was no answer, `transport_error` then says why.
struct registry_http_result {
  long status = 0;
  std::string body;
  std::string transport_error;
  // The failure is one waiting will not fix: a certificate that does not verify, a CA, client
  // certificate or key file that cannot be used.
  bool misconfigured = false;
  // `stop` said so, before or during the exchange: the request was given up.
  bool stopped = false;
  // The body went past registry_http_options::max_body_bytes: the transfer was cut short.
  bool too_large = false;
};

// GET over libcurl, one easy handle per request (requests are rare: one per schema id not yet
// known). Threading: get() may be called from several threads at once.
class registry_http {
 public:
  explicit registry_http(registry_http_options options);

  // `stop`, when set, is polled before the request and while it is in flight (libcurl's
  // progress callback, several times a second): once true, the request ends at once with
  // `stopped` set, rather than after up to `timeout`.
  registry_http_result get(const std::string& url, const std::function<bool()>& stop = {}) const;

 private:
  registry_http_options _options;
};

}  // namespace sluice
