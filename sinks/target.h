#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sinks/retry_policy.h"
#include "sinks/schema_store.h"
#include "sinks/session_observer.h"
#include "sinks/target_check.h"
#include "sinks/target_session.h"

namespace sluice::sink {

// The seam between the connector and where rows go (docs/architecture.md): everything the
// connector asks of a target, in target-neutral types. A target holds its connection
// settings and hands out sessions, each with the roles of one connector thread; PostgreSQL
// is the first (postgres/pg_target.h), chosen by target_factory.h. The connector never names
// an implementation.
//
//   target    open(role) → target_session → make_applier · make_owner · make_reader ·
//                                            make_janitor · make_key_reader ·
//                                            make_offset_admin · make_dead_letter_store
//             make_schema_store (its own connection) · check (sluice check's probes)
//
// Calls cross the seam per batch or per request, never per row. Lifecycle: made once per
// process or command, without I/O; outlives its sessions. Threading: open, make_schema_store
// and check may be called from any thread.
class target {
 public:
  virtual ~target() = default;

  // A session for `role` (application name, health reports), no I/O yet.
  virtual std::unique_ptr<target_session> open(std::string role, retry_policy policy,
                                               session_observer* observer = nullptr) const = 0;
  virtual std::unique_ptr<schema_store> make_schema_store() const = 0;
  // `sluice check`: one connection, no retries, nothing written.
  virtual std::vector<check_finding> check(const check_request& request) const = 0;
};

}  // namespace sluice::sink
