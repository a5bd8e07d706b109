#pragma once

#include <memory>
#include <string>

#include "sinks/mariadb/session/mdb_session.h"
#include "sinks/target_session.h"

namespace sluice::mdb {

// A target session (sinks/target_session.h) on MariaDB: one mdb_session, and the roles of this
// folder made on it. Lifecycle: no I/O until the first call; the roles it makes point into its
// session and live no longer than it. Threading: the session's thread.
class mdb_target_session final : public sink::target_session {
 public:
  mdb_target_session(session_options options, retry_policy policy, std::string role,
                     session_observer* observer)
      : _session(std::move(options), policy, std::move(role), observer) {}

  bool connect(const keep_going& go = {}) override;
  bool ping(const keep_going& go = {}) override;
  std::unique_ptr<sink::batch_applier> make_applier(apply_options options) override;
  std::unique_ptr<sink::partition_owner> make_owner(std::string connector) override;
  std::unique_ptr<sink::state_reader> make_reader(std::string connector) override;
  std::unique_ptr<sink::state_janitor> make_janitor() override;
  std::unique_ptr<sink::target_key_reader> make_key_reader() override;
  std::unique_ptr<sink::offset_admin> make_offset_admin(std::string connector) override;
  std::unique_ptr<sink::connector_control> make_control(std::string connector,
                                                        keep_going go) override;
  std::unique_ptr<sink::dead_letter_store> make_dead_letter_store(std::string connector) override;

  mdb_session& session() { return _session; }

 private:
  mdb_session _session;
};

}  // namespace sluice::mdb
