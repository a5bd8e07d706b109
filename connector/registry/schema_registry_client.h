#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <unordered_map>

#include "connector/registry/registry_http.h"
#include "connector/registry/schema_store.h"
#include "schemas/registry/registry_response.h"
#include "schemas/registry/schema_source.h"

namespace sluice {

struct schema_registry_config;

struct schema_registry_client_options {
  std::string url;  // base URL, e.g. http://registry:8081 or .../apis/ccompat/v7
  registry_http_options http;
  std::chrono::milliseconds backoff_initial{100};
  std::chrono::milliseconds backoff_max{5'000};
  // An id the registry said it does not know (40403) is answered from memory for this long,
  // so that a topic full of such messages is not one synchronous GET each on the decode
  // thread; at most this many ids are remembered (a registry that learns the id later is
  // asked again once the answer expires).
  std::chrono::milliseconds unknown_id_ttl{60'000};
  size_t unknown_ids_max = 1024;
};
schema_registry_client_options registry_client_options(const schema_registry_config& c);

// What the client tells the connector while it waits, and how it learns it should stop.
struct schema_registry_hooks {
  // The registry became unreachable (why) or answers again (""): state_holder::degrade
  // ("schema registry", reason). Called from the waiting thread.
  std::function<void(const std::string& reason)> degraded;
  // True once the connector is stopping: a wait in progress ends (schema_source_stopped).
  std::function<bool()> stop_requested;
};

// A Confluent-compatible Schema Registry client (schema_source). Lookup order:
//
//   memory (by id) → the schema store, if any (survives restarts) → GET {url}/schemas/ids/{id}
//   found: kept in memory and saved to the store; 40403: an error value (dead letter);
//   unreachable: loop { degraded(why); sleep backoff (capped, jittered, stop checked);
//                       ask again } then degraded("") once it answers;
//   refused (401/403, TLS, not a registry): throws schema_source_refused (FAILED).
//
// Lifecycle: built once per connector, before the decoders that use it, destroyed after
// them. Threading: schema() may be called concurrently; a cache hit takes a shared lock only,
// registry requests are made outside every lock (two threads missing one id may both ask).
class schema_registry_client final : public schema_source {
 public:
  schema_registry_client(schema_registry_client_options options, schema_registry_hooks hooks,
                         std::shared_ptr<schema_store> store = nullptr);

  result<std::shared_ptr<const registered_schema>> schema(schema_id id) override;

  // The registry URL as messages show it: credentials in it replaced by ***.
  const std::string& shown_url() const { return _shown_url; }

 private:
  std::shared_ptr<const registered_schema> known(schema_id id);
  // Throws schema_source_stopped when a stop request ended the exchange.
  registry_answer ask(schema_id id) const;
  void remember(const std::shared_ptr<const registered_schema>& schema);
  // Sleeps `delay` in short slices; false when a stop was requested meanwhile.
  bool wait(std::chrono::milliseconds delay) const;
  // A new waiter (counted false: counts it, sets counted) or one with news.
  void waiting(const std::string& reason, bool& counted);
  void done_waiting(bool answered);
  [[noreturn]] void stopped(schema_id id) const;

  schema_registry_client_options _options;
  schema_registry_hooks _hooks;
  std::shared_ptr<schema_store> _store;
  registry_http _http;
  std::string _shown_url;
  std::string _store_url;  // the schema store's key: url_without_user_info
  // Three locks, never nested: a decode thread reading the cache never waits for another's
  // PostgreSQL round trip or for a degraded() callback.
  std::shared_mutex _cache_mutex;
  std::unordered_map<schema_id, std::shared_ptr<const registered_schema>> _cache;
  struct unknown_id {
    std::string reason;
    std::chrono::steady_clock::time_point until;
  };
  // Under _cache_mutex: the negative cache (options.unknown_id_ttl, unknown_ids_max).
  std::unordered_map<schema_id, unknown_id> _unknown;
  std::optional<std::string> still_unknown(schema_id id);
  void remember_unknown(schema_id id, const std::string& reason);
  std::mutex _store_mutex;  // schema_store is called one at a time
  std::mutex _waiting_mutex;
  int _waiting = 0;  // under _waiting_mutex: threads waiting the registry out (DEGRADED while > 0)
};

// A URL fit for messages: "https://u:p@host/x" → "https://***@host/x"; everything up to the
// last '@' is hidden, so a password holding '/' or '@' never shows (redact_url_user_info).
std::string url_without_credentials(const std::string& url);

// The URL with its user info removed (up to the last '@', as url_without_credentials hides
// it): "https://u:p@host/x" → "https://host/x". The schema store's key, so that no password
// is persisted and a password change keeps the stored schemas.
std::string url_without_user_info(const std::string& url);

// The warning for credentials that would cross the network in clear text (basic auth, from
// basic.auth.user.info or the URL's user info, to an http:// registry), or "" when there
// are none or the URL is https://. The client logs it once, when made.
std::string plaintext_credentials_warning(const schema_registry_client_options& options);

}  // namespace sluice
