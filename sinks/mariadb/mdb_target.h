#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sinks/session_options.h"
#include "sinks/target.h"

namespace sluice::mdb {

// MariaDB, the second target (sinks/target.h; SPEC §6b): sessions are mdb_target_session,
// the schema store mdb_schema_store.h, the check probes mdb_check.h. Holds the connection
// settings only (session_options.dsn is the mariadb:// URL).
//
// Lifecycle: no I/O. Threading: any thread (it keeps nothing but the settings).
class mdb_target final : public sink::target {
 public:
  explicit mdb_target(session_options settings) : _settings(std::move(settings)) {}

  std::unique_ptr<sink::target_session> open(std::string role, retry_policy policy,
                                             session_observer* observer = nullptr) const override;
  std::unique_ptr<sink::schema_store> make_schema_store() const override;
  std::vector<sink::check_finding> check(const sink::check_request& request) const override;

 private:
  session_options _settings;
};

}  // namespace sluice::mdb
