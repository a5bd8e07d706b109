#include "sinks/mariadb/mdb_target.h"

#include "sinks/mariadb/mdb_check.h"
#include "sinks/mariadb/mdb_schema_store.h"
#include "sinks/mariadb/mdb_target_session.h"

namespace sluice::mdb {

std::unique_ptr<sink::target_session> mdb_target::open(std::string role, retry_policy policy,
                                                       session_observer* observer) const {
  return std::make_unique<mdb_target_session>(_settings, policy, std::move(role), observer);
}

std::unique_ptr<sink::schema_store> mdb_target::make_schema_store() const {
  return std::make_unique<mdb_schema_store>(_settings);
}

std::vector<sink::check_finding> mdb_target::check(const sink::check_request& request) const {
  return check_mariadb(_settings, request);
}

}  // namespace sluice::mdb
