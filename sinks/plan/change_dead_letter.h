#pragma once

#include <string>

#include "core/catalog/table_router.h"
#include "core/merge/merged_batch.h"
#include "core/model/batch_records.h"

namespace sluice {

// Dead letters for changes refused after the merge (by the planner or by the database).
//
// A merged row has no single Kafka message behind it (its origin is that of its newest
// change), so its dead letter holds, as its value, a JSON document of what would have been
// written — enough to replay it as the merged changes it stands for, once the cause is
// fixed (apply is order-insensitive by CSN):
//   {"table": "db.schema.table", "op": "upsert"|"delete", "key": {...},
//    "upsert_csn": "hex", "delete_csn": "hex", "partial": bool, "image": {...},
//    "bytes_columns": ["column", ...], "column_csns": {"column": "hex", ...}}
// column_csns is there when some column's CSN differs from upsert_csn (partial images); the
// key JSON is the letter's key. JSON has no bytes: a bytes value (value_kind::bytes) prints as
// its base64 string, as Debezium's JSON carries it, and bytes_columns — there when some key or
// image value is bytes — names those columns, so that a reader tells them from strings and
// gets the bytes back. Both end with "source": [database, schema, table] and "types":
// {"column": "decimal(12,2)", ...} (the stream's column types, when it gave any): what
// `sluice dead-letters replay` (connector/prepare/stored_letter.h) rebuilds the changes from.
// A keyless change's letter ({"table", "op", "csn", "image"}) carries
// bytes_columns the same way. A keyless change keeps its Kafka origin. Both name their
// target table when given one.
dead_letter merged_row_dead_letter(const table_rows& table, const merged_row& row,
                                   std::string reason,
                                   dead_letter_kind kind = dead_letter_kind::rejected,
                                   const target_table* target = nullptr);
dead_letter keyless_dead_letter(const table_rows& table, const change& c, std::string reason,
                                dead_letter_kind kind = dead_letter_kind::rejected,
                                const target_table* target = nullptr);

}  // namespace sluice
