#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/catalog/table_router.h"
#include "sinks/mariadb/sql/meta_columns.h"
#include "sinks/mariadb/sql/sql_dialect.h"
#include "sinks/mariadb/sql/table_shape.h"

namespace sluice::mdb {

// The SQL text of the set-based writes on MariaDB (SPEC §4 "Bulk path", §6b), the counterpart
// of postgres/sql/write_sql.h with the same semantics. Values never appear in it: a statement
// reads its rows from a session stage — a temporary table (stage_def) filled by one bulk
// INSERT (array binding, connection::exec_bulk) — whose value columns are permissive (longtext,
// longblob): the conversion to each column's type happens in the one strict statement that
// reads the stage, so that a bad value (a bad date, a number out of range) is an error of the
// batch under the session's strict sql_mode, which the applier isolates into a dead letter,
// never a warning. Key columns are staged typed as the table's (same type and collation), so
// that the stage joins the table by its primary key and compares keys exactly.
//
// Every ON DUPLICATE KEY UPDATE below relies on MariaDB's rule that assignments run left to
// right and see the columns already assigned: each guard reads the OLD CSN, so the CSN column
// is assigned last (the order is tested: write_sql_test.cc, table_writer_integration_test.cc).
// Identifiers are backquoted. Pure functions, unit-tested without a server.

// Where the text differs (sql_dialect.h): MySQL 8 deprecates VALUES() in ON DUPLICATE KEY
// UPDATE (and allows no row alias on INSERT … SELECT): an assignment reads the incoming value
// from the statement's SELECT (the stage) instead. Only unit-tested: MySQL 8 is not run here
// (SPEC §6b).

struct write_sql_context {
  std::string tombstones;    // quoted state table, `sluice`.`tombstones`
  bool soft_delete = false;  // delete.mode: soft (rows keep _sluice_deleted = true)
  sql_dialect dialect = sql_dialect::mariadb();
  // The table has _sluice_updated_at (sluice's tables do; a hand-made one may not).
  bool updated_at = false;
  // insert.mode update (apply_options::update_only): an upsert writes only the rows the table
  // holds (not soft-deleted ones: an update makes no row) and inserts none (sql::held_only).
  bool update_only = false;
  // The key column that names the table's shard (ByLogicalTableRouter, table_plan::
  // shard_column), as its index in the key (the stage's key_alias); -1: none. An upsert is then
  // guarded by its shard's truncate tombstone too (sql::with_tombstone).
  int shard_key = -1;
};

// What a stage holds: lead columns, then the key columns, then the value columns.
enum class stage_kind : uint8_t {
  upsert,     // _sluice_key, _sluice_row_csn
  versioned,  // _sluice_key, _sluice_row_csn, _sluice_in_map (column -> lowercase hex CSN)
  remove,     // _sluice_key, _sluice_row_csn (the delete's CSN), _sluice_key_json
  append,     // _sluice_op, _sluice_row_csn, _sluice_source_ts ('YYYY-MM-DD HH:MM:SS.ffffff'
              // UTC), _sluice_tx, _sluice_topic, _sluice_partition, _sluice_offset, _sluice_index
};

// A session stage: a temporary table (CREATE TEMPORARY TABLE does not commit implicitly) named
// after its column definitions, so that one name is always one definition.
struct stage_def {
  stage_kind kind = stage_kind::upsert;
  std::string table;                                         // unquoted, "sluice_stage_u_<hash>"
  std::vector<std::pair<std::string, std::string>> columns;  // stage name, SQL type
  size_t lead = 0;
  size_t keys = 0;
  size_t values = 0;
};

// The stage for rows of these key and value columns. typed_keys: key columns take the table's
// type and collation (false where the table does not exist yet: a delete only tombstones).
// Value columns are longblob for binary columns, longtext (utf8mb4) for every other.
stage_def make_stage(stage_kind kind, const std::vector<const column_def*>& keys, bool typed_keys,
                     const std::vector<const column_def*>& values);
// binary, varbinary, the blobs: columns that take bytes as bytes.
bool is_binary_type(std::string_view type);
// Stage column names: key i, value i.
std::string key_alias(size_t i);
std::string value_alias(size_t i);
// On MariaDB the stage is not in the server's default engine (InnoDB) but in Aria
// (TRANSACTIONAL=0): it is refilled before every statement that reads it and never needs a
// rollback, and InnoDB's undo log made filling it and emptying it (a DELETE row by row) a third
// of the server's CPU on a mix of changes; Aria empties a table whole and writes through its
// page cache (MyISAM measured slower: a write call per row; docs/performance.md has the
// figures). A ROLLBACK leaves a stage's rows, which the next fill clears anyway. MySQL 8 has
// no Aria, and can refuse a non-transactional table written inside a transaction (error 1785
// under enforce_gtid_consistency, unless binlog_format is ROW): its stage keeps the server's
// default engine (not run here, SPEC §6b). default_engine: the server refused Aria
// (stager::fill).
std::string create_stage_sql(const stage_def& stage, const sql_dialect& dialect,
                             bool default_engine = false);
std::string clear_stage_sql(const stage_def& stage);
// INSERT INTO stage VALUES (?, …): one parameter per column, run by exec_bulk.
std::string fill_stage_sql(const stage_def& stage);

// Upserts the staged rows (an upsert stage of these keys and columns) in one INSERT … SELECT …
// ON DUPLICATE KEY UPDATE, guarded by the CSN and by tombstones: a row older than the key's (or
// the table's) tombstone is not written; an existing row is updated by a newer CSN, or at equal
// CSN in the columns where the incoming value is kept over the stored one (sql::greater_value);
// a soft-deleted row takes the whole image at equal CSN (an upsert beats a delete, SPEC §2).
// With ctx.update_only, rows the table lacks are left out (sql::held_only): every row the
// SELECT yields finds its duplicate, so the guards above are the update's.
// Parameters: the target schema and table, once per tombstone probe (sql::tombstone_params).
std::string upsert_sql(const target_table& table, const stage_def& stage,
                       const std::vector<const column_def*>& key,
                       const std::vector<const column_def*>& columns, const write_sql_context& ctx);

// The fast path for rows whose keys the table does not hold (table_writer::write_new_rows):
// a plain INSERT … VALUES, one placeholder per key column, then per column, then the CSN
// (bytes); _sluice_updated_at and _sluice_deleted take what the upsert would give a new row.
// No guard, no ON DUPLICATE KEY UPDATE: a key the table holds fails it (1062), and the rows go
// the guarded way instead.
std::string insert_new_rows_sql(const target_table& table,
                                const std::vector<const column_def*>& key,
                                const std::vector<const column_def*>& columns,
                                const write_sql_context& ctx);
// Whether the table has a tombstone (of a key, of a shard or of the table): one row, 0 or 1.
// Parameters: target schema, target table.
std::string any_tombstone_sql(const write_sql_context& ctx);

// Deletes (soft: marks) the rows of a remove stage whose CSN is below their delete's. No
// parameters.
std::string delete_rows_sql(const target_table& table, const stage_def& stage,
                            const std::vector<const column_def*>& key,
                            const write_sql_context& ctx);
// Raises the staged keys' tombstones to their delete CSN (a tombstone only ever rises).
// Parameters: target schema, target table.
std::string tombstones_sql(const stage_def& stage, const write_sql_context& ctx);

// A truncate: deletes (soft: marks; keyless tables are always hard) the rows whose CSN is below
// csn, an SQL expression (sql::hex_literal of the truncate's CSN). No parameters; with a
// shard_column (a truncate confined to one shard, table_plan::truncate_column) only the rows
// whose shard column holds the shard, one parameter: the shard.
std::string truncate_rows_sql(const target_table& table, const std::string& csn, bool keyless,
                              const write_sql_context& ctx, const std::string& shard_column = {});
// The table-wide tombstone (the empty key) raised to csn. Parameters: schema, table.
std::string table_tombstone_sql(const std::string& csn, const write_sql_context& ctx);

// Appends the rows of an append stage, each source position once (a replay, an offsets reset or
// a redelivery appends nothing twice): position — by the table's unique position index; a
// conflict on another unique key (an adopted table's primary key) assigns an impossible value
// to _sluice_kafka_index, a strict error of the batch, so that the row is a dead letter as on
// PostgreSQL; any — any conflict is a position written already (primary.key.mode kafka);
// none — no index: appended as they come. Never INSERT IGNORE: it turns bad values into
// warnings. No parameters.
enum class append_once : uint8_t { position, any, none };
std::string append_sql(const target_table& table, const stage_def& stage,
                       const std::vector<const column_def*>& columns, append_once once,
                       const write_sql_context& ctx);
// insert.mode update: how many staged rows of an upsert or versioned stage name a key the table
// does not hold, out of those no tombstone refuses (a change of a deleted row is stale, not
// missing: the PostgreSQL target's count). An update inserts nothing, so this reads the same
// before or after it. One row, one column; parameters as upsert_sql's.
std::string missing_rows_sql(const target_table& table, const stage_def& stage,
                             const std::vector<const column_def*>& key,
                             const write_sql_context& ctx);

// Reads and resets the rows the last upsert, tombstone or append statement found already there
// (sql::found_counter): one row, one column.
std::string found_rows_sql();

}  // namespace sluice::mdb
