#pragma once

#include <pqxx/transaction_base>

#include "core/catalog/table_router.h"
#include "sinks/postgres/sql/table_shape.h"

namespace sluice {

// Reads a table's shape from the catalog (pg_attribute, pg_index); exists = false when there
// is no such table. One round trip.
table_shape read_table_shape(pqxx::transaction_base& tx, const target_table& table);

}  // namespace sluice
