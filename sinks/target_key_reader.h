#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/catalog/table_router.h"
#include "sinks/keep_going.h"

namespace sluice::sink {

// The target key lookup role, target-neutral: a target table's primary key columns, for
// sources whose messages do not name their key (SPEC §1: "the connector asks the sink").
// PostgreSQL's: postgres/target_key_reader.h.
//
// Lifecycle: made by a target_session, lives no longer than it. Threading: the session's.
class target_key_reader {
 public:
  virtual ~target_key_reader() = default;

  // In key order; empty: no such table, or no primary key. Nothing when go() said stop
  // while waiting out an outage.
  virtual std::optional<std::vector<std::string>> primary_key(const target_table& table,
                                                              const keep_going& go = {}) = 0;
};

}  // namespace sluice::sink
