#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/catalog/table_catalog.h"
#include "core/model/change.h"
#include "core/model/result.h"

namespace sluice {

// Reads back the value of a dead letter made from changes after the merge
// (sinks/plan/change_dead_letter.h: kinds routing, rejected, ddl_failed, keyless)
// as the changes it stands for, for `sluice dead-letters replay`:
//
//   a merged row   -> a delete at delete_csn (if any), and the image as one upsert at
//                     upsert_csn — or, when its columns carry CSNs of their own
//                     (column_csns), one partial upsert per CSN with just those columns —
//                     so that merging them gives back the row the letter holds
//   a keyless one  -> its change (op, csn, image)
//
// Values come back with their kinds (JSON numbers, strings, booleans, objects/arrays as json,
// bytes_columns as bytes); "types" gives the changes their column types; "source" names the
// source table, interned in `catalog` (routing applies as for the stream). A letter written
// before letters named their source (no "source" member), or that is not such a document, is
// an error saying so. The changes carry no Kafka origin: a replay moves no offsets.
std::optional<error> read_stored_letter(std::string_view json, table_catalog& catalog,
                                        std::vector<change>& out);

// The headers of a stored letter (dead_letters.headers: [{"key"|"key_hex": …, "value"|
// "value_hex": … | null}, …], json_text.h's headers_json) back as name and bytes.
using stored_headers = std::vector<std::pair<std::string, std::optional<std::string>>>;
result<stored_headers> read_stored_headers(std::string_view json);

}  // namespace sluice
