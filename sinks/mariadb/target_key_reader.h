#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sinks/mariadb/session/mdb_session.h"
#include "sinks/target_key_reader.h"

namespace sluice::mdb {

// The key lookup role on MariaDB (sinks/target_key_reader.h): the PRIMARY index's columns, as
// plan/table_shape_reader.h reads them. Lifecycle: made by mdb_target_session. Threading: its.
class target_key_reader final : public sink::target_key_reader {
 public:
  explicit target_key_reader(mdb_session& session) : _session(session) {}
  std::optional<std::vector<std::string>> primary_key(const target_table& table,
                                                      const keep_going& go = {}) override;

 private:
  mdb_session& _session;
};

}  // namespace sluice::mdb
