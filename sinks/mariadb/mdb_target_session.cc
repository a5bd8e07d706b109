#include "sinks/mariadb/mdb_target_session.h"

#include "sinks/mariadb/batch_applier.h"
#include "sinks/mariadb/connector_control.h"
#include "sinks/mariadb/dead_letter_queries.h"
#include "sinks/mariadb/offset_admin.h"
#include "sinks/mariadb/partition_owner.h"
#include "sinks/mariadb/state_janitor.h"
#include "sinks/mariadb/state_reader.h"
#include "sinks/mariadb/target_key_reader.h"

namespace sluice::mdb {

bool mdb_target_session::connect(const keep_going& go) {
  // Opening the connection migrates the state database (mdb_session::open).
  return _session.run_while(go, [](connection&) { return true; }).has_value();
}

bool mdb_target_session::ping(const keep_going& go) {
  return _session
      .run_while(go,
                 [](connection& conn) {
                   conn.exec("DO 1");
                   return 0;
                 })
      .has_value();
}

std::unique_ptr<sink::batch_applier> mdb_target_session::make_applier(apply_options options) {
  return std::make_unique<batch_applier>(_session, std::move(options));
}

std::unique_ptr<sink::partition_owner> mdb_target_session::make_owner(std::string connector) {
  return std::make_unique<partition_owner>(_session, std::move(connector));
}

std::unique_ptr<sink::state_reader> mdb_target_session::make_reader(std::string connector) {
  return std::make_unique<state_reader>(_session, std::move(connector));
}

std::unique_ptr<sink::state_janitor> mdb_target_session::make_janitor() {
  return std::make_unique<state_janitor>(_session);
}

std::unique_ptr<sink::target_key_reader> mdb_target_session::make_key_reader() {
  return std::make_unique<target_key_reader>(_session);
}

std::unique_ptr<sink::offset_admin> mdb_target_session::make_offset_admin(std::string connector) {
  return std::make_unique<offset_admin>(_session, std::move(connector));
}

std::unique_ptr<sink::connector_control> mdb_target_session::make_control(std::string connector,
                                                                          keep_going go) {
  return std::make_unique<connector_control>(_session, std::move(connector), std::move(go));
}

std::unique_ptr<sink::dead_letter_store> mdb_target_session::make_dead_letter_store(
    std::string connector) {
  return std::make_unique<dead_letter_queries>(_session, std::move(connector));
}

}  // namespace sluice::mdb
