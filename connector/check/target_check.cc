#include "connector/check/target_check.h"

#include <charconv>
#include <set>
#include <string>
#include <string_view>

#include "connector/base/sink_options.h"
#include "connector/config/redact.h"
#include "core/catalog/table_router.h"

namespace sluice {
namespace {

using status = check_report::status;

// The database of a mariadb:// (or mysql://) DSN: the URL's path, percent-decoded, as
// sinks/mariadb reads it (the text after the first '/' past the scheme, before any '?').
// Empty when the DSN names none. Kept here, a few lines, rather than reaching into the
// target's folder (scripts/check-layout.sh).
std::string dsn_database(std::string_view dsn) {
  const size_t scheme = dsn.find("://");
  if (scheme == std::string_view::npos) return {};
  std::string_view rest = dsn.substr(scheme + 3);
  rest = rest.substr(0, rest.find('?'));
  const size_t slash = rest.find('/');
  if (slash == std::string_view::npos) return {};
  const std::string_view path = rest.substr(slash + 1);
  std::string out;
  for (size_t i = 0; i < path.size(); ++i) {
    unsigned v = 0;
    if (path[i] == '%' && i + 2 < path.size() &&
        std::from_chars(path.data() + i + 1, path.data() + i + 3, v, 16).ptr ==
            path.data() + i + 3) {
      out += static_cast<char>(v);
      i += 2;
    } else {
      out += path[i];
    }
  }
  return out;
}

}  // namespace

std::set<std::string> static_target_schemas(const config& c, bool& dynamic) {
  // An unqualified name lands in PostgreSQL's "public" schema, in the DSN's database on
  // MariaDB (none named: nothing to look at, the target's own check says so).
  const std::string unqualified = c.targets_mariadb() ? dsn_database(c.mariadb.dsn) : "public";
  std::set<std::string> out;
  const auto add = [&](const std::string& qualified) {
    const size_t dot = qualified.find('.');
    if (dot == std::string::npos) {
      if (!unqualified.empty()) out.insert(unqualified);
      return;
    }
    const std::string schema = qualified.substr(0, dot);
    if (schema.find("${") != std::string::npos) {
      dynamic = true;
    } else {
      out.insert(c.identifier_case == letter_case::lower ? lower_ascii(schema) : schema);
    }
  };
  add(c.table_name_format);
  for (const auto& [source, table] : c.tables)
    if (!table.target.empty()) add(table.target);
  return out;
}

namespace {

check_report::status shown(sink::check_status s) {
  switch (s) {
    case sink::check_status::ok:
      return status::ok;
    case sink::check_status::warn:
      return status::warn;
    case sink::check_status::fail:
      return status::fail;
    case sink::check_status::config_error:
      return status::config_error;
    case sink::check_status::unreachable:
      return status::unreachable;
  }
  return status::fail;
}

}  // namespace

void check_target(const config& c, check_report& report, std::chrono::milliseconds timeout) {
  sink::check_request request;
  request.shown_target = redact_secrets(redact(c.target_dsn()), c.secrets);
  request.timeout = timeout;
  request.target_schemas = static_target_schemas(c, request.dynamic_schemas);
  request.auto_create = c.auto_create;
  for (sink::check_finding& f : make_target(c)->check(request)) {
    // An error's text may quote a secret. A DSN that does not parse is told without it by
    // libpq already; other errors may quote the DSN itself.
    if (f.error_text) {
      f.detail = f.status == sink::check_status::config_error
                     ? redact_secrets(f.detail, c.secrets)
                     : redact_secrets(redact(f.detail), c.secrets);
    }
    report.add(std::move(f.area), std::move(f.subject), shown(f.status), std::move(f.detail));
  }
}

}  // namespace sluice
