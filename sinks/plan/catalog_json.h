#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/decoded.h"

namespace sluice {

// What every target's catalog writer stores for a source table, target-neutral (the SQL around
// it is the target's: postgres/state/catalog_writer.h, mariadb/state/catalog_writer.h).

// A catalog row's `columns` JSON: [{"name", "type" (the source type), "class", "nullable",
// "key", "portable_type" (column_type::to_text())}, ...]. Rows written before portable types
// lack "portable_type"; readers take them as they are (backward compatible).
std::string catalog_columns_json(const std::vector<column_info>& columns);
// A stored "portable_type" read back: unknown when absent (an older row) or unreadable.
column_type stored_portable_type(std::optional<std::string_view> text);

// The update write() keeps per table: the one with the highest CSN, where both of two have
// a CSN, else the later one. In table-name order.
std::vector<const catalog_update*> newest_per_table(const std::vector<catalog_update>& updates);

// A stored "class" read back (unknown when unreadable).
column_class stored_column_class(std::string_view name);

}  // namespace sluice
