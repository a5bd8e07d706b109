#pragma once

#include <string>

#include "core/merge/merged_batch.h"
#include "core/model/batch_records.h"

namespace sluice {

// Dead letters for changes refused after the merge (by the planner or by the database).
//
// A merged row has no single Kafka message behind it, so its dead letter carries no origin
// and, as its value, a JSON document of what would have been written:
//   {"table": "db.schema.table", "op": "upsert"|"delete", "key": {...},
//    "upsert_csn": "hex", "delete_csn": "hex", "image": {...}}
// and its key JSON as key. A keyless change keeps its Kafka origin.
dead_letter merged_row_dead_letter(const table_rows& table, const merged_row& row,
                                   std::string reason);
dead_letter keyless_dead_letter(const table_rows& table, const change& c, std::string reason);

}  // namespace sluice
