#include "connector/registry/registry_http.h"

#include <memory>
#include <mutex>
#include <stdexcept>
#include <string_view>

#include <curl/curl.h>

namespace sluice {
namespace {

// curl_global_init is not thread-safe in libcurl 7.x: once per process, before any handle.
void init_curl_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
      throw std::runtime_error("libcurl could not be initialised");
    }
  });
}

struct easy_deleter {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
};
using easy_handle = std::unique_ptr<CURL, easy_deleter>;

struct slist_deleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

struct body_sink {
  std::string& body;
  std::size_t max_bytes;
  bool too_large = false;
};

size_t append_body(char* data, size_t size, size_t count, void* user) {
  auto* sink = static_cast<body_sink*>(user);
  const size_t n = size * count;
  if (sink->body.size() + n > sink->max_bytes) {
    sink->too_large = true;  // tells the CURLE_WRITE_ERROR that follows from an I/O failure
    return 0;
  }
  sink->body.append(data, n);
  return n;
}

// Non-zero (abort, CURLE_ABORTED_BY_CALLBACK) once a stop is requested.
int stop_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  const auto* stop = static_cast<const std::function<bool()>*>(user);
  return (*stop)() ? 1 : 0;
}

// TLS alerts the registry sends when it refuses the handshake: it is up and says no, so waiting
// will not help (a missing or untrusted client certificate, no common protocol or cipher).
constexpr std::string_view refusing_alerts[] = {
    "alert certificate required",    "alert bad certificate",       "alert unknown ca",
    "alert certificate unknown",     "alert certificate revoked",   "alert certificate expired",
    "alert access denied",           "alert handshake failure",     "alert protocol version",
    "alert unsupported certificate", "alert insufficient security",
};

bool misconfigured(CURLcode code, std::string_view text) {
  switch (code) {
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT:
      return true;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_RECV_ERROR:
      for (const std::string_view alert : refusing_alerts) {
        if (text.find(alert) != std::string_view::npos) return true;
      }
      return false;
    default:
      return false;
  }
}

}  // namespace

registry_http::registry_http(registry_http_options options) : _options(std::move(options)) {
  init_curl_once();
}

registry_http_result registry_http::get(const std::string& url,
                                        const std::function<bool()>& stop) const {
  registry_http_result out;
  if (stop && stop()) {
    out.stopped = true;
    out.transport_error = "stop requested";
    return out;
  }
  easy_handle curl(curl_easy_init());
  if (!curl) {
    out.transport_error = "libcurl could not create a handle";
    return out;
  }
  CURL* c = curl.get();
  char error_text[CURL_ERROR_SIZE] = {};
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error_text);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);  // timeouts without SIGALRM: threads are in use
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(_options.timeout.count()));
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(_options.timeout.count()));
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);  // credentials never travel elsewhere
  // No proxy, whatever http_proxy / https_proxy / ALL_PROXY say: sluice's environment is rarely
  // written with the registry in mind, and a proxy would see the basic-auth credentials of
  // plain HTTP and decide where they go. docs/schema-registry.md says so.
  curl_easy_setopt(c, CURLOPT_PROXY, "");
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
  if (!_options.ca_file.empty()) curl_easy_setopt(c, CURLOPT_CAINFO, _options.ca_file.c_str());
  if (!_options.certificate_file.empty()) {
    curl_easy_setopt(c, CURLOPT_SSLCERT, _options.certificate_file.c_str());
    curl_easy_setopt(c, CURLOPT_SSLCERTTYPE, "PEM");
  }
  if (!_options.key_file.empty()) {
    curl_easy_setopt(c, CURLOPT_SSLKEY, _options.key_file.c_str());
    curl_easy_setopt(c, CURLOPT_SSLKEYTYPE, "PEM");
  }
  if (!_options.user_info.empty()) {
    curl_easy_setopt(c, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
    curl_easy_setopt(c, CURLOPT_USERPWD, _options.user_info.c_str());
  }
  std::unique_ptr<curl_slist, slist_deleter> headers(curl_slist_append(
      nullptr, "Accept: application/vnd.schemaregistry.v1+json, application/json"));
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, append_body);
  body_sink sink{out.body, _options.max_body_bytes};
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
  if (stop) {
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, stop_progress);
    curl_easy_setopt(c, CURLOPT_XFERINFODATA, &stop);
  }

  const CURLcode code = curl_easy_perform(c);
  if (code != CURLE_OK) {
    out.transport_error = error_text[0] != '\0' ? error_text : curl_easy_strerror(code);
    out.body.clear();
    out.stopped = code == CURLE_ABORTED_BY_CALLBACK;
    out.too_large = sink.too_large;
    out.misconfigured = misconfigured(code, out.transport_error);
    return out;
  }
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &out.status);
  return out;
}

}  // namespace sluice
