#include "sinks/postgres/pg_target_session.h"

#include <pqxx/nontransaction>

#include "sinks/postgres/batch_applier.h"
#include "sinks/postgres/connector_control.h"
#include "sinks/postgres/dead_letter_queries.h"
#include "sinks/postgres/offset_admin.h"
#include "sinks/postgres/partition_owner.h"
#include "sinks/postgres/state_janitor.h"
#include "sinks/postgres/state_reader.h"
#include "sinks/postgres/target_key_reader.h"

namespace sluice {

bool pg_target_session::connect(const keep_going& go) {
  // Opening the connection migrates the state schema (pg_session::open).
  return _session.run_while(go, [](pqxx::connection&) { return true; }).has_value();
}

bool pg_target_session::ping(const keep_going& go) {
  return _session
      .run_while(go,
                 [](pqxx::connection& conn) {
                   pqxx::nontransaction(conn).exec("SELECT 1");
                   return 0;
                 })
      .has_value();
}

std::unique_ptr<sink::batch_applier> pg_target_session::make_applier(apply_options options) {
  return std::make_unique<batch_applier>(_session, std::move(options));
}

std::unique_ptr<sink::partition_owner> pg_target_session::make_owner(std::string connector) {
  return std::make_unique<partition_owner>(_session, std::move(connector));
}

std::unique_ptr<sink::state_reader> pg_target_session::make_reader(std::string connector) {
  return std::make_unique<state_reader>(_session, std::move(connector));
}

std::unique_ptr<sink::state_janitor> pg_target_session::make_janitor() {
  return std::make_unique<state_janitor>(_session);
}

std::unique_ptr<sink::target_key_reader> pg_target_session::make_key_reader() {
  return std::make_unique<target_key_reader>(_session);
}

std::unique_ptr<sink::offset_admin> pg_target_session::make_offset_admin(std::string connector) {
  return std::make_unique<offset_admin>(_session, std::move(connector));
}

std::unique_ptr<sink::connector_control> pg_target_session::make_control(std::string connector,
                                                                         keep_going go) {
  return std::make_unique<pg_connector_control>(_session, std::move(connector), std::move(go));
}

std::unique_ptr<sink::dead_letter_store> pg_target_session::make_dead_letter_store(
    std::string connector) {
  return std::make_unique<dead_letter_queries>(_session, std::move(connector));
}

}  // namespace sluice
