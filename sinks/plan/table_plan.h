#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/catalog/table_router.h"
#include "core/merge/merged_batch.h"

namespace sluice {

// A target column that some item of the batch writes.
struct planned_column {
  std::string name;                    // target name
  std::string source;                  // source name it comes from
  value_kind kind = value_kind::null;  // kind of the non-null values seen; null: only nulls
  bool mixed = false;                  // non-null values of more than one kind
  column_type type;                    // as the stream typed it (widest seen); unknown: untyped
};

// Items that carry the same set of columns: one INSERT statement writes them all.
struct column_group {
  std::vector<uint32_t> columns;  // indexes into table_plan::columns, ascending
  std::vector<uint32_t> items;    // item indexes, ascending (so in key order)
};

// How one table's part of a merged batch is written (SPEC §4): its target, its column
// mapping and, per item, where each image column goes. Items are table_rows::rows for a
// keyed plan and table_rows::keyless for a keyless one. Built by table_planner, read by
// table_ddl and table_writer; it points into the batch, which outlives it.
struct table_plan {
  static constexpr uint32_t no_group = UINT32_MAX;

  const table_rows* rows = nullptr;
  target_table target;
  bool keyless = false;
  bool truncate = false;  // this plan applies rows->truncate_seq
  // ByLogicalTableRouter (apply_options::shard_columns): the target column that names the
  // plan's shard — of its key, or of its truncate's scope — "" for an ordinary table. A shard
  // may share its target with the other shards of the column (route_registry.h), and its
  // upserts are guarded by its shard's truncate as well (sql::no_newer_tombstone).
  std::string shard_column;
  // A truncate confined to one shard (table_rows::truncate_scope): the target column it is
  // scoped by; "": the whole table.
  std::string truncate_column;
  bool partial = false;  // some accepted row has a partial image: the table needs per-column CSNs
  std::vector<std::string> key_columns;  // target names, key order
  std::vector<value_kind> key_kinds;     // kind of each key column's values
  std::vector<column_type> key_types;    // each key column's type, as the stream typed it
  std::vector<planned_column> columns;   // non-key columns
  // Item i's image column k (merged_row::columns or change::after) goes to
  // columns[slots[slot_begin[i] + k]]; -1: not written (a key column, or absent).
  std::vector<uint32_t> slot_begin;
  std::vector<int32_t> slots;
  std::vector<uint32_t> group_of;  // per item: its column group; no_group: nothing to insert
  std::vector<uint8_t> rejected;   // per item: dead-lettered by the planner or the database
  std::vector<column_group> groups;

  size_t item_count() const { return rejected.size(); }
  const merged_row& row(size_t i) const { return rows->rows[i]; }
  const change& keyless_change(size_t i) const { return rows->keyless[i]; }
  const planned_column* find(const std::string& name) const;
};

}  // namespace sluice
