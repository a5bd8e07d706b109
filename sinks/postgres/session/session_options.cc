#include "sinks/postgres/session/session_options.h"

#include <libpq-fe.h>

#include <map>
#include <memory>
#include <stdexcept>

namespace sluice {
namespace {

// A conninfo value in single quotes, with quotes and backslashes escaped (libpq's rule).
std::string quoted(const std::string& value) {
  std::string out = "'";
  for (char c : value) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

std::string seconds_of(std::chrono::milliseconds ms) {
  // libpq takes whole seconds; a limit under a second rounds up rather than to "none".
  return std::to_string((ms.count() + 999) / 1000);
}

}  // namespace

session_conninfo make_session_conninfo(const session_options& options, const std::string& role) {
  char* error = nullptr;
  std::unique_ptr<PQconninfoOption, decltype(&PQconninfoFree)> parsed(
      PQconninfoParse(options.dsn.c_str(), &error), &PQconninfoFree);
  if (!parsed) {
    std::string what = error ? error : "out of memory";
    PQfreemem(error);
    while (!what.empty() && what.back() == '\n')
      what.pop_back();
    throw std::invalid_argument("postgres.dsn does not parse: " + what);
  }
  std::map<std::string, std::string> given;
  for (const PQconninfoOption* o = parsed.get(); o->keyword; ++o) {
    if (o->val && *o->val) given[o->keyword] = o->val;
  }
  std::map<std::string, std::string> defaults;
  if (options.connect_timeout.count() > 0) {
    defaults["connect_timeout"] =
        seconds_of(std::max(options.connect_timeout, std::chrono::milliseconds(2'000)));
  }
  if (options.keepalives_idle.count() > 0) {
    defaults["keepalives"] = "1";
    defaults["keepalives_idle"] = seconds_of(options.keepalives_idle);
    defaults["keepalives_interval"] = seconds_of(options.keepalives_interval);
    defaults["keepalives_count"] = std::to_string(options.keepalives_count);
  }
  if (options.tcp_user_timeout.count() > 0) {
    defaults["tcp_user_timeout"] = std::to_string(options.tcp_user_timeout.count());
  }
  defaults["application_name"] =
      role.empty() ? options.application_name : options.application_name + ":" + role;
  for (auto& [k, v] : defaults)
    given.emplace(k, v);  // the DSN's own value wins
  session_conninfo out;
  for (const auto& [k, v] : given) {
    if (!out.conninfo.empty()) out.conninfo += ' ';
    out.conninfo += k + "=" + quoted(v);
  }
  const std::string dsn_options = given.count("options") ? given["options"] : "";
  const auto set = [&](const char* name, std::chrono::milliseconds ms) {
    // A limit the DSN sets through `options=-c name=…` is the user's: keep it.
    if (dsn_options.find(name) != std::string::npos) return;
    out.limits_sql += "SET ";
    out.limits_sql += name;
    out.limits_sql += " = " + std::to_string(ms.count()) + "; ";
  };
  set("statement_timeout", options.statement_timeout);
  set("lock_timeout", options.lock_timeout);
  set("idle_in_transaction_session_timeout", options.idle_in_transaction_timeout);
  return out;
}

}  // namespace sluice
