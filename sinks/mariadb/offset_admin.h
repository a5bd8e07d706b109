#pragma once

#include <string>
#include <vector>

#include "sinks/mariadb/session/mdb_session.h"
#include "sinks/offset_admin.h"

namespace sluice::mdb {

// The offset admin role on MariaDB (sinks/offset_admin.h): `sluice offsets reset` and
// KIP-875's DELETE, each in one transaction. Lifecycle: made by mdb_target_session.
class offset_admin final : public sink::offset_admin {
 public:
  offset_admin(mdb_session& session, std::string connector)
      : _session(session), _connector(std::move(connector)) {}
  std::vector<stored_offset> reset(const std::vector<offset_target>& targets) override;
  std::vector<stored_offset> clear(const std::vector<offset_key>& partitions) override;

 private:
  mdb_session& _session;
  std::string _connector;
};

}  // namespace sluice::mdb
