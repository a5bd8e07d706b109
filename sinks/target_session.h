#pragma once

#include <memory>
#include <string>

#include "sinks/apply_options.h"
#include "sinks/batch_applier.h"
#include "sinks/connector_control.h"
#include "sinks/dead_letter_store.h"
#include "sinks/keep_going.h"
#include "sinks/offset_admin.h"
#include "sinks/partition_owner.h"
#include "sinks/state_janitor.h"
#include "sinks/state_reader.h"
#include "sinks/target_key_reader.h"

namespace sluice::sink {

// One connection to the target and everything about keeping it (reconnecting, the retry
// policy, the observer, the state migrated on first connect), and the roles that work on it:
// a connector thread opens a session for its role (a lane, the partition owner, the janitor,
// a key lookup, a command) and makes the role objects it needs on it.
//
// Lifecycle: made by target::open without I/O; the connection opens on first use. Role
// objects live no longer than their session. Threading: one thread at a time.
class target_session {
 public:
  virtual ~target_session() = default;

  // Connects now (the sink's state migrated), waiting out failures as the policy says.
  // False when go() said stop meanwhile.
  virtual bool connect(const keep_going& go = {}) = 0;
  // One round trip, so that an outage shows (to the observer) even when no role works; false
  // when go() said stop meanwhile.
  virtual bool ping(const keep_going& go = {}) = 0;

  virtual std::unique_ptr<batch_applier> make_applier(apply_options options) = 0;
  virtual std::unique_ptr<partition_owner> make_owner(std::string connector) = 0;
  virtual std::unique_ptr<state_reader> make_reader(std::string connector) = 0;
  virtual std::unique_ptr<state_janitor> make_janitor() = 0;
  virtual std::unique_ptr<target_key_reader> make_key_reader() = 0;
  virtual std::unique_ptr<offset_admin> make_offset_admin(std::string connector) = 0;
  virtual std::unique_ptr<dead_letter_store> make_dead_letter_store(std::string connector) = 0;
  // `go`: the control's calls stop waiting out an outage once it says false.
  virtual std::unique_ptr<connector_control> make_control(std::string connector, keep_going go) = 0;
};

}  // namespace sluice::sink
