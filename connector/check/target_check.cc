#include "connector/check/target_check.h"

#include <set>
#include <string>

#include "connector/base/sink_options.h"
#include "connector/config/redact.h"
#include "core/catalog/table_router.h"

namespace sluice {
namespace {

using status = check_report::status;

// The target schemas the configuration names without a placeholder: the schema part of
// table.name.format ("public" when it has none; on MariaDB, whose unqualified names land in
// the DSN's database, the target maps "public" to it) and of each tables.<source>.target. A
// schema part holding a placeholder depends on the messages: nullopt in `dynamic`.
std::set<std::string> static_target_schemas(const config& c, bool& dynamic) {
  std::set<std::string> out;
  const auto add = [&](const std::string& qualified) {
    const size_t dot = qualified.find('.');
    if (dot == std::string::npos) {
      out.insert("public");
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
