#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/catalog/table_router.h"
#include "sinks/postgres/sql/table_shape.h"

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
// _sluice_tomb: the newer of the key's tombstone and the table's (NULL: neither). The key's is
// a scalar subquery, not a join: one primary-key probe per row, always — a join let the
// planner, misled by stale statistics of the tombstones, hash or scan every tombstone of the
// table, a cost that grows with tombstone.retention instead of with the batch. And only when
// the table has tombstones at all (one EXISTS per statement): a table that never saw a delete
// pays nothing per row. Consistent, because a tombstone of a key in the batch can only be
// written by a holder of that key's lock (a shard's, by a truncate, which locks the table).
// With ctx.shard_column (ByLogicalTableRouter) the shard's truncate tombstone counts too: the
// one keyed by sql::shard_key of the row's shard column.
std::string with_tombstone(const write_sql_context& ctx, const std::string& source);
// A condition: no tombstone of the key (the bytea expression key), of its shard (as above;
// the shard column is read from the key's relation) nor of the table is newer than csn. The
// same probes as with_tombstone, for one row: used as MERGE's WHEN NOT MATCHED condition, so
// that only rows whose key the table does not hold pay for them.
std::string no_newer_tombstone(const write_sql_context& ctx, const std::string& key,
                               const std::string& csn);
// The canonical key (core/model/row_key.h) of a shard: its column alone, holding the text
// expression `text` — what a shard's truncate tombstone is keyed by. Text in PostgreSQL holds
// no NUL byte, so none of the canonical form's escapes apply.
std::string shard_key(const std::string& text);
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
// Whether value a is kept over value b (SQL expressions of one column's type) when both come
// from one CSN — the merge engine's rule (merge_engine.cc), so that two images of a key at one
// CSN end the same whether they meet in one batch or in two: a value beats NULL, then the
// greater text form, byte by byte. NULL when both are NULL (neither is kept over the other).
std::string greater_value(const std::string& a, const std::string& b);
// The guarded upsert as one MERGE. rows: a SELECT list of (target column, SQL value) pairs
// over from_where (the FROM … WHERE … of the incoming rows); they join the target d on its
// key and are visible to updates and guard as EXCLUDED, as in INSERT … ON CONFLICT. A matched
// row is updated when guard holds, a missing one inserted. MERGE rather than ON CONFLICT:
// its inserts are plain, without speculative insertion (an index probe, then a confirmation
// record per row) and its updates lock no tuple first — about a third of the statement's
// time. Safe because every writer of a key holds its key lock (key_locks.h): no other
// transaction can insert a key between the join and the insert.
// helpers: more (name, value) pairs of the incoming rows, for updates and guards only.
// insert_guard: when not empty, a missing row is inserted only where it holds.
// update_only (insert.mode update): rows the table lacks are not inserted; the statement is
// then an UPDATE that returns one row, (rows updated, incoming rows whose key the table did not
// hold and insert_guard would have let in), both read in the statement's snapshot.
std::string merge_upsert(const target_table& table, const std::vector<const column_def*>& key,
                         const std::vector<std::pair<std::string, std::string>>& rows,
                         const std::string& from_where, const std::string& updates,
                         const std::string& guard,
                         const std::vector<std::pair<std::string, std::string>>& helpers = {},
                         const std::string& insert_guard = {}, bool update_only = false);
// jsonb_build_object over (key, value) SQL pairs, in chunks joined by || because a function
// takes at most 100 arguments.
std::string jsonb_object(const std::vector<std::pair<std::string, std::string>>& pairs);
// The stored column CSN map, made explicit for rows that have none.
std::string stored_map(const std::vector<const column_def*>& all_columns);

}  // namespace sql
}  // namespace sluice
