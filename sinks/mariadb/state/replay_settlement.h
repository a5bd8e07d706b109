#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sinks/mariadb/session/mdb_connection.h"
#include "sinks/mariadb/session/state_schema.h"

namespace sluice::mdb {

// A `dead-letters replay` batch's letters, settled in the batch's transaction (the contract
// of postgres/state/dead_letter_store.h's settle_replayed): the `replayed` letters that
// applied go; one that failed again keeps its id, taking the reason, kind, target and bytes
// of the letter the batch just `written` for the same message, which goes instead. Letters of
// one message (topic, partition, offset) pair up in id order; letters without an origin (a
// merged row MariaDB refused) pair only within their target table. A new letter with no
// replayed one of its message stays as written.
//
// PostgreSQL pairs in one statement (window functions in a data-modifying WITH); MariaDB has
// no UPDATE … FROM a CTE, so the pairs are found here from the letters' origins (one read)
// and applied by two array-bound statements.
//
// Lifecycle: per batch, no state. Threading: none of its own.
class replay_settlement {
 public:
  // ids_per_read: letters whose origins one statement reads (MariaDB takes at most 65,535
  // placeholders; a replay page is batch.size letters, up to ten million).
  replay_settlement(const state_schema& schema, std::string connector,
                    size_t ids_per_read = 10'000);

  // Returns how many replayed letters went (they applied).
  uint64_t settle(connection& conn, const std::vector<int64_t>& replayed,
                  const std::vector<int64_t>& written) const;

 private:
  std::string _table;
  std::string _connector;
  size_t _ids_per_read;
};

}  // namespace sluice::mdb
