#pragma once

#include <string>
#include <vector>

#include "sinks/offset_admin.h"
#include "sinks/postgres/session/pg_session.h"
#include "sinks/postgres/state/offset_store.h"

namespace sluice {

// The offset admin role: what `sluice offsets reset` writes — each chosen partition moved to
// its new offset with its owner epoch bumped, all in one transaction (offset_store::reset).
// Run only while no sluice of the connector is live (the command asks Kafka first); the
// epoch bump is what keeps a zombie that still thinks it owns a partition from writing
// after it.
//
// Lifecycle: one per command, on its own session. Threading: the session's thread.
class offset_admin final : public sink::offset_admin {
 public:
  offset_admin(pg_session& session, std::string connector);

  std::vector<stored_offset> reset(const std::vector<offset_target>& targets) override;
  std::vector<stored_offset> clear(const std::vector<offset_key>& partitions) override;

 private:
  pg_session& _session;
  std::string _connector;
};

}  // namespace sluice
