#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/catalog/table_router.h"
#include "sinks/postgres/sql/table_shape.h"

namespace sluice {

// The SQL text of the set-based writes (SPEC §4 "Bulk path"). Values never appear in it: a
// statement reads its rows from a source — a FROM item aliased s(<lead columns>, <key
// columns>, <columns>) — that is either unnest() over array parameters, one text array per
// column, or a session staging table filled by COPY (copy_stager.h); every key column and
// column arrives as text and is cast to the column's type by the statement. Identifiers are
// always quoted. Pure functions, so that the statements are unit-tested without a database.
struct write_sql_context {
  std::string tombstones;    // quoted state table, "sluice"."tombstones"
  bool soft_delete = false;  // delete.mode: soft (rows keep _sluice_deleted = true)
  // insert.mode update: the upserts update the rows the table holds and insert none; each
  // returns one row (rows updated, rows missing).
  bool update_only = false;
  // The table's shard column (table_plan::shard_column, ByLogicalTableRouter), "" for none:
  // an upsert is guarded by its shard's truncate tombstone too (sql::shard_key).
  std::string shard_column = {};
};

// A column a statement's rows carry before the key columns and the columns.
struct lead_column {
  const char* type;   // scalar SQL type
  const char* alias;  // name in the source
};
using lead_columns = std::vector<lead_column>;

// _sluice_key bytea (canonical key), _sluice_row_csn bytea.
const lead_columns& upsert_lead();
// upsert_lead() and _sluice_col_csn jsonb (column -> hex CSN).
const lead_columns& upsert_versioned_lead();
// _sluice_key bytea, _sluice_row_csn bytea (the delete CSN), _sluice_key_json text.
const lead_columns& delete_lead();
// _sluice_op text, _sluice_row_csn bytea, _sluice_source_us bigint, _sluice_tx text,
// _sluice_topic text, _sluice_partition int4, _sluice_offset bigint, _sluice_index int4.
const lead_columns& append_lead();

// The unnest() source: one array parameter per lead column and per column, numbered from
// first_param.
std::string unnest_source(size_t first_param, const lead_columns& lead,
                          const std::vector<const column_def*>& a,
                          const std::vector<const column_def*>& b = {});

// Upserts the rows of one column group in one MERGE, guarded by the CSN and by tombstones: a
// row older than the key's (or the table's) tombstone is not inserted; an existing row is
// updated by a newer CSN, or at equal CSN (another image of that CSN, met in another batch)
// in the columns where the incoming value is kept over the stored one by the merge's rule
// (sql::greater_value). Parameters: $1 target schema, $2 target table; the rows come from source
// (upsert_lead(), then the key columns in key order, then the columns), by default unnest()
// over $3 canonical keys bytea[], $4 upsert CSNs bytea[], then one text[] per key column, then
// one text[] per column. Returns no rows; the affected count is the rows written.
std::string upsert_sql(const target_table& table, const std::vector<const column_def*>& key,
                       const std::vector<const column_def*>& columns, const write_sql_context& ctx,
                       std::string source = {});

// Deletes (or soft-deletes) rows whose CSN is below their delete CSN, and raises their
// tombstones to it, in one statement. With table_exists = false only the tombstones are
// written. For a table with per-column CSNs (versioned: its data columns), a row that
// survives the delete (it has a newer column) has its columns older than the delete set
// to NULL. Parameters: $1 schema, $2 table; the rows come from source (delete_lead(), then
// the key columns), by default unnest() over $3 canonical keys bytea[], $4 delete CSNs
// bytea[], $5 key JSON text[], then one text[] per key column. Returns one row: (rows
// deleted, tombstones written).
std::string delete_sql(const target_table& table, const std::vector<const column_def*>& key,
                       bool table_exists, const write_sql_context& ctx,
                       const std::vector<const column_def*>* versioned = nullptr,
                       std::string source = {});

// Removes (or soft-deletes) every row whose CSN is below the truncate's and records a
// table-wide tombstone (the empty key); with per-column CSNs, surviving rows lose their
// older columns as for a delete. Parameters: $1 schema, $2 table, $3 truncate CSN. Returns
// one row: (rows deleted, tombstones written).
std::string truncate_sql(const target_table& table, bool table_exists, bool keyless,
                         const write_sql_context& ctx,
                         const std::vector<const column_def*>* versioned = nullptr);
// A truncate confined to one shard (ByLogicalTableRouter): the same, but for the rows whose
// shard column holds the shard only, and the tombstone keyed by the shard (the canonical key of
// the shard column alone, sql::shard_key), which guards that shard's upserts. With
// table_exists = false (or a table without the column: no row of the shard) only the
// tombstone is written. Parameters: $1 schema, $2 table, $3 truncate CSN, $4 the shard (text),
// $5 its canonical key bytea, $6 its key JSON text.
std::string shard_truncate_sql(const target_table& table, const std::string& shard_column,
                               bool table_exists, const write_sql_context& ctx,
                               const std::vector<const column_def*>* versioned = nullptr);

// Appends keyless changes (a keyless table, or an append mode: insert.mode insert,
// primary.key.mode kafka or none), each source position once: a row whose (topic, partition,
// offset, index in the message) the table holds already is skipped, so that a replay, an
// offsets reset or a redelivery never appends it twice (the table needs the unique index
// position_index_sql() makes). The rows come from source (append_lead(), then the columns), by
// default unnest() over $1 ops text[], $2 CSNs bytea[], $3 source timestamps in microseconds
// bigint[], $4 source transaction ids text[], $5 topics text[], $6 partitions int4[], $7
// offsets bigint[], $8 indexes int4[], then one text[] per column. Another unique index (a
// primary key an adopted table has on the changes' key) still refuses a duplicate: the row is
// a dead letter.
// once: position (the default), by the position index; any (primary.key.mode kafka, where
// every unique index of the table keys the position: Connect's sink keys its tables by
// __connect_topic, _partition, _offset), any conflict skipped; none (a partitioned table,
// which has no such index), appended as they come.
enum class append_once : uint8_t { position, any, none };
std::string append_sql(const target_table& table, const std::vector<const column_def*>& columns,
                       std::string source = {}, append_once once = append_once::position);

// The source position columns, sorted by name, as a text[] literal's elements (what
// read_table_shape compares a unique index's columns with).
std::vector<std::string> position_columns();
// The unique index on position_columns() (NULL positions — rows appended without a Kafka
// origin or index: a file's records, letters from before the index was kept — are distinct,
// and always appended). Rows appended before a table had it keep a NULL index.
std::string position_index_sql(const target_table& table);

// Metadata columns of replica tables (a contract: SPEC §4).
namespace meta {
inline constexpr const char* csn = "_sluice_csn";
inline constexpr const char* col_csn = "_sluice_col_csn";
inline constexpr const char* updated_at = "_sluice_updated_at";
inline constexpr const char* deleted = "_sluice_deleted";
inline constexpr const char* op = "_sluice_op";
inline constexpr const char* source_ts = "_sluice_source_ts";
inline constexpr const char* tx = "_sluice_tx";
inline constexpr const char* kafka_topic = "_sluice_kafka_topic";
inline constexpr const char* kafka_partition = "_sluice_kafka_partition";
inline constexpr const char* kafka_offset = "_sluice_kafka_offset";
inline constexpr const char* kafka_index = "_sluice_kafka_index";
// One of the above: sluice's bookkeeping, which it adds to any table it writes (an adopted
// one too, whatever auto.evolve says), as opposed to the stream's columns.
inline bool is_own(std::string_view name) {
  for (const char* m : {csn, col_csn, updated_at, deleted, op, source_ts, tx, kafka_topic,
                        kafka_partition, kafka_offset, kafka_index}) {
    if (name == m) return true;
  }
  return false;
}
}  // namespace meta

}  // namespace sluice
