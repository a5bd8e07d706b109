#pragma once

#include <string>
#include <vector>

#include "core/catalog/table_router.h"
#include "sinks/mariadb/sql/table_shape.h"
#include "sinks/mariadb/sql/write_sql.h"

namespace sluice::mdb {

// Statements for tables that keep per-column CSNs (SPEC §4: tables that receive partial
// images), with postgres/sql/column_csn_sql.h's semantics.
//
// Encoding: _sluice_col_csn is a JSON object, target column name -> lowercase hex of the CSN
// bytes of the image that last set it (MariaDB has no arrays; hex keeps byte order, and the
// statements compare UNHEX()ed bytes). A column missing from a row's map was never set (it
// orders lowest); a row without a map (written before the table kept them) has every column at
// its _sluice_csn. The row's _sluice_csn is its highest column CSN, so that the row-level delete
// rule still holds: a row goes when every column is older than the delete.

// The upsert, from a versioned stage: each column takes the incoming value only when its
// incoming CSN is newer than the stored one, or equal with a value kept over the stored one
// (sql::greater_value: a delete at that CSN cleared it, or another image of that CSN held less);
// a new row's columns older than the key's tombstone are NULL. all_columns: every non-key data
// column of the table. With ctx.update_only, rows the table lacks are left out (sql::held_only).
// Parameters: target schema, target table, once per probe (sql::tombstone_params).
//
// Order of the assignments (left to right, each seeing the ones before): each data column
// first, recording whether it was newer in a session variable (@sluice_n<i>) — computed once,
// from the old values —; then _sluice_updated_at and the map from those flags (the map still
// reads the old _sluice_csn for a row without one); the CSN last.
std::string upsert_versioned_sql(const target_table& table, const stage_def& stage,
                                 const std::vector<const column_def*>& key,
                                 const std::vector<const column_def*>& columns,
                                 const std::vector<const column_def*>& all_columns,
                                 const write_sql_context& ctx);

// After the deletes of a remove stage: in rows that outlive their delete (a column newer than
// it), the columns last set before it become NULL (clear_columns_sql) and are stamped with the
// delete's CSN (clear_stamps_sql). Two statements, run in that order: a multi-table UPDATE does
// not promise its assignments' order, and the columns' test reads the stamps. No parameters.
std::string clear_columns_sql(const target_table& table, const stage_def& stage,
                              const std::vector<const column_def*>& key,
                              const std::vector<const column_def*>& columns,
                              const write_sql_context& ctx);
std::string clear_stamps_sql(const target_table& table, const stage_def& stage,
                             const std::vector<const column_def*>& key,
                             const std::vector<const column_def*>& columns);

// The same for a truncate at csn (an SQL expression), over the whole table, in one
// single-table UPDATE (its assignments run left to right: the columns, then the stamps). No
// parameters; with a shard_column (a truncate confined to one shard) over that shard's rows
// only, one parameter: the shard.
std::string truncate_clear_sql(const target_table& table,
                               const std::vector<const column_def*>& columns,
                               const std::string& csn, const write_sql_context& ctx,
                               const std::string& shard_column = {});

}  // namespace sluice::mdb
