#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/catalog/table_router.h"
#include "sinks/postgres/table_shape.h"

namespace sluice {

struct write_sql_context;

// Pieces the statement builders share (write_sql.cc, column_csn_sql.cc). Conventions: the
// target table is aliased d, the unnest() rows s, the tombstones t.
namespace sql {

// A string literal of any text: E'…' with quotes and backslashes escaped, whatever
// standard_conforming_strings says.
std::string quote_literal(std::string_view text);
std::string param(size_t n);
// CAST(s."col" AS type)
std::string cast(const column_def& c);
// "unnest($first::type, …) AS s(alias, …)": leading typed arrays, then one text[] per column
// of each list.
std::string unnest(size_t first, const std::vector<std::pair<std::string, std::string>>& lead,
                   const std::vector<const column_def*>& a,
                   const std::vector<const column_def*>& b = {});
// The rows of source (a FROM item aliased s, with an _sluice_key column) with one more column,
// _sluice_tomb: the newer of the key's tombstone and the table's (NULL: neither). An equality
// join on the tombstones' primary key and one lookup of the table's, so that the cost stays
// one index probe (or a hash) per row whatever the number of tombstones.
std::string with_tombstone(const write_sql_context& ctx, const std::string& source);
// d."k" = CAST(s."k" AS type) AND …
std::string key_match(const std::vector<const column_def*>& key);
// (d._sluice_csn IS NULL OR d._sluice_csn < csn)
std::string older_than(const std::string& csn);
// The tombstone upsert over a SELECT of (schema, table, key, key_json, csn, deleted_at): a
// tombstone only ever rises.
std::string tombstone_insert(const write_sql_context& ctx, const std::string& select);
// DELETE, or for soft deletes an UPDATE that marks the rows.
std::string remove_rows(const target_table& table, const write_sql_context& ctx,
                        const std::string& using_clause, const std::string& where,
                        const std::string& csn);
// The CSN a stored row's column was last set at (column_csn_sql.h).
std::string stored_csn(const column_def& c);
// jsonb_build_object over (key, value) SQL pairs, in chunks joined by || because a function
// takes at most 100 arguments.
std::string jsonb_object(const std::vector<std::pair<std::string, std::string>>& pairs);
// The stored column CSN map, made explicit for rows that have none.
std::string stored_map(const std::vector<const column_def*>& all_columns);

}  // namespace sql
}  // namespace sluice
