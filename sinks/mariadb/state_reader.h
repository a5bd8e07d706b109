#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sinks/mariadb/session/mdb_session.h"
#include "sinks/state_reader.h"

namespace sluice::mdb {

// The state reader role on MariaDB (sinks/state_reader.h; the model: postgres/state_reader.h).
// Never writes. Lifecycle: made by mdb_target_session. Threading: its thread.
class state_reader final : public sink::state_reader {
 public:
  state_reader(mdb_session& session, std::string connector)
      : _session(session), _connector(std::move(connector)) {}

  std::optional<std::vector<catalog_update>> load_catalog(const keep_going& go = {}) override;
  std::vector<stored_offset> read_offsets() override;
  std::vector<table_progress> read_table_progress() override;
  std::optional<size_t> pending_chunks(const keep_going& go = {}) override;

 private:
  mdb_session& _session;
  std::string _connector;
};

}  // namespace sluice::mdb
