#pragma once

#include <string>

#include "sinks/session_options.h"

namespace sluice {

// What a session hands libpq and the server.
struct session_conninfo {
  // The libpq connection string: the DSN's own settings, plus the defaults of session_options for
  // every connection keyword it leaves unset (connect_timeout, keepalives, tcp_user_timeout,
  // application_name).
  std::string conninfo;
  // SET statements for the server-side limits the DSN's `options` (-c name=value) leave unset.
  std::string limits_sql;
};

// Throws std::invalid_argument when the DSN does not parse (libpq's message, without the DSN:
// it may hold a password). role: appended to the application name.
session_conninfo make_session_conninfo(const session_options& options, const std::string& role);

}  // namespace sluice
