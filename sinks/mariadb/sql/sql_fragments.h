#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/catalog/table_router.h"
#include "sinks/mariadb/sql/table_shape.h"

namespace sluice::mdb {

struct write_sql_context;

// Pieces the MariaDB statement builders share (write_sql.cc, column_csn_sql.cc). Conventions:
// the target table is aliased d where a statement names it (an ON DUPLICATE KEY UPDATE
// assignment names its columns bare: they are the row being updated), the stage s, the
// tombstones tb. Pure text.
namespace sql {

// A string literal of any text that reads the same whatever sql_mode says about backslashes:
// 'text' with quotes doubled, or, for text holding a backslash, _utf8mb4 X'…'.
std::string quote_literal(std::string_view text);
// X'…': bytes as a hexadecimal literal (a binary string).
std::string hex_literal(std::string_view bytes);
// The JSON path of one member of an object, '$."name"', as an SQL literal.
std::string json_path(std::string_view member);
// Whether value a is kept over value b (SQL expressions of one column's type) when both come
// from one CSN — the merge engine's rule (merge_engine.cc) and PostgreSQL's
// (postgres/sql/sql_fragments.h greater_value): a value beats NULL, then the greater text form,
// byte by byte. False when both are NULL.
std::string greater_value(const std::string& a, const std::string& b);
// (csn IS NULL OR csn < incoming): the stored row (the column reference `csn`) is older.
std::string older_than(const std::string& csn, const std::string& incoming);
// d.`k` = s.`_sluice_k0` AND …: the stage's key columns, typed as the table's (stage_def).
std::string key_match(const std::vector<const column_def*>& key);
// The stage joined with the newest of its key's tombstone, its shard's (with ctx.shard_key:
// the one keyed by shard_key of the row's shard column) and the table's (NULL: none), as
// _sluice_tomb: "(SELECT s.*, … AS _sluice_tomb FROM (… `stage` s) AS s) AS s". Parameters:
// the target schema and table, once per probe (tombstone_params). One primary-key probe per row
// and tombstone; SHA2 over the canonical key, as state_schema's tombstones store it.
std::string with_tombstone(const write_sql_context& ctx, const std::string& stage);
// How many parameters with_tombstone takes: 4, or 6 with a shard column.
size_t tombstone_params(const write_sql_context& ctx);
// The canonical key (core/model/row_key.h) of a shard: its column alone, holding the text of
// the SQL expression `text` — what a shard's truncate tombstone is keyed by (the model:
// postgres/sql/sql_fragments.h shard_key). A shard's name holds no NUL, which the canonical
// form would escape.
std::string shard_key(const std::string& text);
// insert.mode update: " AND EXISTS (the table holds the stage row's key, not soft-deleted)",
// for the WHERE of an upsert's SELECT (whose stage is s); "" without ctx.update_only.
std::string held_only(const target_table& table, const std::vector<const column_def*>& key,
                      const write_sql_context& ctx);
// The session variable every ON DUPLICATE KEY UPDATE below counts the rows it found in: the
// server reports only the rows it inserted or changed (affected rows, mysql_info's Records and
// Duplicates), and with CLIENT_FOUND_ROWS an unchanged row counts as much as a new one, so a
// stale row could not be told from an inserted one. Read and reset after each statement
// (found_rows_sql).
inline constexpr const char* found_counter = "@sluice_found";
// An assignment's expression that also counts the row: IF((counter := counter + 1) IS NULL,
// column, expr) — the counter is never NULL, so the value is expr. Put in the first assignment.
std::string counting(const std::string& column, const std::string& expr);
// The hash a tombstone is keyed by, of the SQL expression key (canonical key bytes).
std::string key_hash(const std::string& key);

}  // namespace sql
}  // namespace sluice::mdb
