#include "connector/registry/schema_registry_client.h"

#include <algorithm>
#include <random>
#include <thread>

#include "connector/base/log.h"
#include "connector/config/config.h"
#include "connector/config/redact.h"

namespace sluice {
namespace {

constexpr std::chrono::milliseconds stop_poll{20};

std::string without_trailing_slashes(std::string url) {
  while (!url.empty() && url.back() == '/')
    url.pop_back();
  return url;
}

// 80% to 120% of `d`: instances that lost the registry together do not ask again together.
std::chrono::milliseconds jittered(std::chrono::milliseconds d) {
  thread_local std::minstd_rand random{std::random_device{}()};
  std::uniform_int_distribution<long> percent(80, 120);
  return std::chrono::milliseconds(d.count() * percent(random) / 100);
}

}  // namespace

std::string url_without_credentials(const std::string& url) {
  return redact_url_user_info(url);
}

std::string url_without_user_info(const std::string& url) {
  const auto scheme = url.find("://");
  if (scheme == std::string::npos) return url;
  const auto at = url.rfind('@');
  if (at == std::string::npos || at < scheme + 3) return url;
  return url.substr(0, scheme + 3) + url.substr(at + 1);
}

std::string plaintext_credentials_warning(const schema_registry_client_options& options) {
  if (!options.url.starts_with("http://")) return "";
  const bool in_url = url_without_user_info(options.url) != options.url;
  if (options.http.user_info.empty() && !in_url) return "";
  return "the Schema Registry at " + url_without_credentials(options.url) +
         " is reached over http://: its basic-auth credentials cross the network in clear "
         "text; use https://";
}

schema_registry_client_options registry_client_options(const schema_registry_config& c) {
  schema_registry_client_options o;
  o.url = c.effective_url();
  o.http.user_info = c.effective_user_info();
  o.http.ca_file = c.ca_location;
  o.http.certificate_file = c.certificate_location;
  o.http.key_file = c.key_location;
  o.http.timeout = c.timeout;
  return o;
}

schema_registry_client::schema_registry_client(schema_registry_client_options options,
                                               schema_registry_hooks hooks,
                                               std::shared_ptr<schema_store> store)
    : _options(std::move(options)),
      _hooks(std::move(hooks)),
      _store(std::move(store)),
      _http(_options.http) {
  _options.url = without_trailing_slashes(_options.url);
  _shown_url = url_without_credentials(_options.url);
  _store_url = url_without_user_info(_options.url);
  if (const std::string warning = plaintext_credentials_warning(_options); !warning.empty())
    SLUICE_LOG(warn, "registry", warning);
}

result<std::shared_ptr<const registered_schema>> schema_registry_client::schema(schema_id id) {
  // Never asked for: the registry's answer could only be a 404 or, from a proxy, worse.
  if (id.value() <= 0) return invalid_schema_id(id);
  if (auto found = known(id)) return found;
  if (auto reason = still_unknown(id))
    return make_error(error_code::unsupported, std::move(*reason));
  // From its first unreachable answer until it leaves schema(), this thread counts among the
  // waiters (DEGRADED while there are any). A guard: an exception on any path (a stop, a
  // refusal, a throwing hook or store, bad_alloc) must not leave it counted, or DEGRADED
  // would never clear.
  struct waiter_guard {
    schema_registry_client& client;
    bool counted = false;
    void done(bool answered) {
      if (!counted) return;
      counted = false;
      client.done_waiting(answered);
    }
    ~waiter_guard() {
      try {
        done(false);
      } catch (...) {  // a destructor must not throw; the count is down all the same
      }
    }
  } waiter{*this};
  auto delay = _options.backoff_initial;
  for (;;) {
    registry_answer answer = ask(id);
    if (answer.outcome != registry_outcome::unreachable) waiter.done(true);
    switch (answer.outcome) {
      case registry_outcome::found:
        remember(answer.schema);
        return answer.schema;
      case registry_outcome::not_found:
        remember_unknown(id, answer.reason);
        return make_error(error_code::unsupported, std::move(answer.reason));
      case registry_outcome::refused:
        throw schema_source_refused(answer.reason);
      case registry_outcome::unreachable:
        break;
    }
    if (!waiter.counted) {
      SLUICE_LOG(warn, "registry",
                 answer.reason << "; waiting for it (schema id " << id.value() << ")");
    }
    waiting(answer.reason, waiter.counted);
    if (!wait(jittered(delay))) {
      waiter.done(false);
      stopped(id);
    }
    delay = std::min(delay * 2, _options.backoff_max);
  }
}

std::shared_ptr<const registered_schema> schema_registry_client::known(schema_id id) {
  {
    std::shared_lock lock(_cache_mutex);
    if (const auto it = _cache.find(id); it != _cache.end()) return it->second;
  }
  if (!_store) return nullptr;
  try {
    std::shared_ptr<const registered_schema> stored;
    {
      std::lock_guard lock(_store_mutex);
      stored = _store->load(_store_url, id);
    }
    if (stored) {
      std::lock_guard lock(_cache_mutex);
      _cache.emplace(id, stored);
    }
    return stored;
  } catch (const std::exception& e) {
    // The store is a convenience: without it the registry is asked, as on a first start.
    SLUICE_LOG(warn, "registry", "cannot read stored schema id " << id.value() << ": " << e.what());
    return nullptr;
  }
}

std::optional<std::string> schema_registry_client::still_unknown(schema_id id) {
  const auto now = std::chrono::steady_clock::now();
  {
    std::shared_lock lock(_cache_mutex);
    const auto it = _unknown.find(id);
    if (it == _unknown.end()) return std::nullopt;
    if (it->second.until > now) return it->second.reason;
  }
  std::lock_guard lock(_cache_mutex);  // expired: forgotten, the registry is asked again
  if (const auto it = _unknown.find(id); it != _unknown.end() && it->second.until <= now)
    _unknown.erase(it);
  return std::nullopt;
}

void schema_registry_client::remember_unknown(schema_id id, const std::string& reason) {
  if (_options.unknown_ids_max == 0 || _options.unknown_id_ttl.count() <= 0) return;
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(_cache_mutex);
  if (_unknown.size() >= _options.unknown_ids_max) {
    std::erase_if(_unknown, [&](const auto& entry) { return entry.second.until <= now; });
    // Still full: one entry makes room (which one matters little: each is asked again).
    if (_unknown.size() >= _options.unknown_ids_max) _unknown.erase(_unknown.begin());
  }
  _unknown[id] = {reason, now + _options.unknown_id_ttl};
}

void schema_registry_client::stopped(schema_id id) const {
  throw schema_source_stopped("stopped while waiting for the schema registry at " + _shown_url +
                              " (schema id " + std::to_string(id.value()) + ")");
}

registry_answer schema_registry_client::ask(schema_id id) const {
  const auto http =
      _http.get(_options.url + "/schemas/ids/" + std::to_string(id.value()), _hooks.stop_requested);
  if (http.stopped) stopped(id);
  if (http.too_large) {
    // Not an outage: asking again gets the same answer. No schema is this large.
    return {registry_outcome::refused, nullptr,
            "the schema registry at " + _shown_url + " sent an answer larger than " +
                std::to_string(_options.http.max_body_bytes) + " bytes for schema id " +
                std::to_string(id.value())};
  }
  if (http.status == 0 && http.misconfigured) {
    return {registry_outcome::refused, nullptr,
            "the schema registry at " + _shown_url + " cannot be used: " + http.transport_error};
  }
  return classify_registry_response(_shown_url, id, http.status, http.body, http.transport_error);
}

void schema_registry_client::remember(const std::shared_ptr<const registered_schema>& schema) {
  {
    std::lock_guard lock(_cache_mutex);
    _cache.emplace(schema->id, schema);
  }
  if (!_store) return;
  try {
    std::lock_guard lock(_store_mutex);
    _store->save(_store_url, *schema);
  } catch (const std::exception& e) {
    SLUICE_LOG(warn, "registry",
               "cannot store schema id " << schema->id.value() << ": " << e.what());
  }
}

bool schema_registry_client::wait(std::chrono::milliseconds delay) const {
  const auto until = std::chrono::steady_clock::now() + delay;
  for (;;) {
    if (_hooks.stop_requested && _hooks.stop_requested()) return false;
    const auto now = std::chrono::steady_clock::now();
    if (now >= until) return true;
    std::this_thread::sleep_for(
        std::min<std::chrono::steady_clock::duration>(until - now, stop_poll));
  }
}

void schema_registry_client::waiting(const std::string& reason, bool& counted) {
  std::lock_guard lock(_waiting_mutex);
  if (!counted) {
    ++_waiting;
    counted = true;  // before the hook, which may throw: the guard then counts it down
  }
  if (_hooks.degraded) _hooks.degraded(reason);
}

void schema_registry_client::done_waiting(bool answered) {
  std::lock_guard lock(_waiting_mutex);
  --_waiting;
  if (answered) SLUICE_LOG(info, "registry", "the schema registry at " << _shown_url << " answers");
  if (_waiting == 0 && _hooks.degraded) _hooks.degraded("");
}

}  // namespace sluice
