#include "connector/check/registry_check.h"

#include <algorithm>
#include <string>

#include "connector/config/redact.h"
#include "connector/registry/registry_http.h"
#include "connector/registry/schema_registry_client.h"

namespace sluice {

void check_registry(const config& c, check_report& report, std::chrono::milliseconds timeout) {
  using status = check_report::status;
  schema_registry_client_options options = registry_client_options(c.schema_registry);
  if (options.url.empty()) return;
  options.http.timeout = std::min(options.http.timeout, timeout);
  const std::string shown = url_without_credentials(options.url);
  const registry_http http(options.http);
  // As the client asks: the URL as configured (user info in it is basic auth to libcurl).
  const registry_http_result r = http.get(options.url + "/subjects");
  const auto said = [&](const std::string& text) { return redact_secrets(text, c.secrets); };
  if (r.status == 200) {
    report.add("registry", shown, status::ok, "answered /subjects");
  } else if (r.status == 401 || r.status == 403) {
    report.add("registry", shown, status::fail,
               "HTTP " + std::to_string(r.status) + ": check schema.registry.basic.auth.user.info");
  } else if (r.status == 0 && r.misconfigured) {
    report.add("registry", shown, status::config_error, said(r.transport_error));
  } else if (r.status == 0) {
    report.add("registry", shown, status::unreachable, said(r.transport_error));
  } else {
    report.add("registry", shown, status::fail,
               "HTTP " + std::to_string(r.status) +
                   " to /subjects: not a Confluent-compatible "
                   "registry at this URL?");
  }
}

}  // namespace sluice
