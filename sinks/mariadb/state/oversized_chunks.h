#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/model/batch_records.h"
#include "sinks/mariadb/session/mdb_connection.h"
#include "sinks/mariadb/sql/sql_dialect.h"
#include "sinks/plan/chunk_pieces.h"

namespace sluice::mdb {

// Chunks whose fragments hold more than chunk.max.bytes in all (chunk_store.h "refuse"; the
// model: postgres/state/oversized_chunks.h): found by SUM(LENGTH(payload)) in SQL — InnoDB
// reads an off-page blob to measure it, on the server: none of its bytes reach sluice — and
// refused the same way: every piece deleted and read back without a fragment's bytes, each
// going to the dead letters with a reason naming the size (the data is in Kafka at the
// pieces' offsets, not copied here).
//
// Stage: apply (state), inside the batch transaction, under the chunks' lock rows.
// Lifecycle: one per chunk_store. Threading: its store's.
class oversized_chunks {
 public:
  // `dialect`: how the pieces are deleted and read back (state_sql.h's delete_returning).
  oversized_chunks(std::string table, std::string connector, size_t max_bytes,
                   sql_dialect dialect = sql_dialect::mariadb())
      : _table(std::move(table)),
        _connector(std::move(connector)),
        _max_bytes(max_bytes),
        _dialect(dialect) {}

  bool too_big(int64_t fragment_bytes) const {
    return static_cast<uint64_t>(fragment_bytes) > _max_bytes;
  }
  // Of these chunks, those too big, with their size, by chunk id.
  std::vector<chunk_bytes> find(connection& conn, const std::vector<std::string>& chunk_ids) const;
  // Deletes the pieces of `big` unread and appends their dead letters. completed_at: refused
  // complete (a marker stays, as for a chunk completed, so a redelivery is dropped); none:
  // refused as expired.
  void refuse(connection& conn, const std::vector<chunk_bytes>& big,
              std::optional<timestamp_ns> completed_at,
              std::vector<dead_letter>& dead_letters) const;

 private:
  std::string _table;  // pending_fragments, qualified
  std::string _connector;
  size_t _max_bytes;  // chunk.max.bytes
  sql_dialect _dialect;
};

}  // namespace sluice::mdb
