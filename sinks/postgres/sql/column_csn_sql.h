#pragma once

#include <string>
#include <vector>

#include "core/catalog/table_router.h"
#include "sinks/postgres/sql/table_shape.h"
#include "sinks/postgres/sql/write_sql.h"

namespace sluice {

// Statements for tables that keep per-column CSNs (SPEC §4: tables that receive partial
// images — GoldenGate partial UPDATEs, Debezium unavailable values).
//
// _sluice_col_csn (jsonb) maps each target column to the hex CSN of the image that last set
// it. A column missing from a row's map was never set (it orders lowest); a row without a
// map (written before the table kept them) has every column at its _sluice_csn. The row's
// _sluice_csn is its highest column CSN, so the row-level delete rule still holds: a row
// goes when every column is older than the delete.

// The upsert: each column takes the incoming value only when the incoming column CSN is
// newer than the stored one, or equal with a non-NULL value where the row holds NULL (a
// delete at that CSN cleared it: the upsert wins the tie); a new row's columns older than
// the key's tombstone are NULL.
// all_columns: every non-key data column of the table. Parameters: $1 schema, $2 table;
// the rows come from source (upsert_versioned_lead(), then the key columns, then the
// columns), by default unnest() over $3 canonical keys bytea[], $4 row CSNs bytea[], $5 column
// CSN maps jsonb[], then one text[] per key column, then one text[] per column.
std::string upsert_versioned_sql(const target_table& table,
                                 const std::vector<const column_def*>& key,
                                 const std::vector<const column_def*>& columns,
                                 const std::vector<const column_def*>& all_columns,
                                 const write_sql_context& ctx, std::string source = {});

// UPDATE that, in rows that outlive a delete at csn (an SQL expression), sets the columns
// last set before it to NULL and stamps them with it. from/match select the rows (empty: all).
std::string clear_older_columns_sql(const target_table& table,
                                    const std::vector<const column_def*>& columns,
                                    const std::string& from, const std::string& match,
                                    const std::string& csn);

}  // namespace sluice
