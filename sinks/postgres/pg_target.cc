#include "sinks/postgres/pg_target.h"

#include "sinks/postgres/pg_check.h"
#include "sinks/postgres/pg_target_session.h"
#include "sinks/postgres/state/pg_schema_store.h"

namespace sluice {

std::unique_ptr<sink::target_session> pg_target::open(std::string role, retry_policy policy,
                                                      session_observer* observer) const {
  return std::make_unique<pg_target_session>(_settings, policy, std::move(role), observer);
}

std::unique_ptr<sink::schema_store> pg_target::make_schema_store() const {
  return std::make_unique<pg_schema_store>(_settings);
}

std::vector<sink::check_finding> pg_target::check(const sink::check_request& request) const {
  return check_postgres(_settings, request);
}

}  // namespace sluice
