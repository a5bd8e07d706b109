#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "core/catalog/table_catalog.h"
#include "core/model/change.h"
#include "core/model/csn.h"
#include "core/model/row_key.h"
#include "core/model/value.h"

namespace sluice {

struct merged_column {
  // Spelled out (not an aggregate) so that emplace_back(name, v, seq) builds in place with
  // every compiler (clang 14 lacks parenthesized aggregate initialization).
  merged_column() = default;
  merged_column(std::string n, value val, const csn& s)
      : name(std::move(n)), v(std::move(val)), seq(s) {}

  std::string name;
  value v;
  csn seq;  // CSN of the image this value came from
};

// Everything a batch says about one key, collapsed (SPEC §4). The applier turns it into at
// most one write of that key.
struct merged_row {
  row_key key;
  csn upsert_seq;  // highest upsert CSN; empty when the batch only deletes the key
  csn delete_seq;  // highest delete CSN; empty when the batch never deletes the key
  // Columns of upserts not overtaken by delete_seq, each at its highest CSN. For a row
  // whose images were all full, every column carries upsert_seq.
  std::vector<merged_column> columns;
  bool partial = false;       // some contributing image was partial
  timestamp_ns source_ts{0};  // newest source timestamp among contributing changes
  message_origin origin;      // of the newest contributing change (for its dead letter)

  // An upsert beats a delete at equal CSN (SPEC §2).
  bool exists() const { return !upsert_seq.empty() && upsert_seq >= delete_seq; }
};

struct table_rows {
  table_entry* table = nullptr;
  // The topic of the table's first change in the batch: what ${topic} in table.name.format
  // names its target by (a source table comes on one topic; "" when no change said).
  std::string topic;
  std::vector<merged_row> rows;  // sorted by key.canonical, one per key
  csn truncate_seq;              // highest truncate CSN, empty when none
  // The shard the truncates are confined to (change::key of a truncate: the shard column
  // alone); empty: the whole table. A source table comes on one topic, so its truncates name
  // one shard; where they do not, scopes_differ, and the sink refuses the truncate rather than
  // widen it to other shards.
  row_key truncate_scope;
  bool truncate_scopes_differ = false;
  std::vector<change> keyless;  // keyless table: appended as they came (SPEC §4)
  bool partial = false;         // some row has a partial image
  // The column types of the batch's changes of this table, one entry per distinct schema
  // (usually one), in the order they came: what the sink creates and evolves columns with.
  std::vector<shared_column_types> types;
  timestamp_ns newest_source_ts{0};
  size_t collapsed = 0;  // this table's share of merge_stats
  size_t csn_conflicts = 0;
};

struct merge_stats {
  size_t input = 0;          // changes in
  size_t rows = 0;           // keys out
  size_t collapsed = 0;      // changes folded into another of the same key
  size_t duplicates = 0;     // same key, CSN and image as another: no-ops
  size_t csn_conflicts = 0;  // same key and CSN, different images: one kept deterministically
};

struct merged_batch {
  std::vector<table_rows> tables;  // in catalog name order
  merge_stats stats;
};

}  // namespace sluice
