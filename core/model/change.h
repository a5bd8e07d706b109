#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/catalog/table_catalog.h"
#include "core/model/column_type.h"
#include "core/model/csn.h"
#include "core/model/named_type.h"
#include "core/model/row_key.h"
#include "core/model/value.h"

namespace sluice {

enum class op_kind : uint8_t { upsert, remove, truncate };
enum class read_method : uint8_t { backfill, cdc };

const char* to_string(op_kind op);  // "upsert", "delete", "truncate"

// Where a change came from in Kafka.
struct message_origin {
  std::string topic;
  partition_id partition{0};
  kafka_offset offset{0};
  timestamp_ns timestamp{0};  // Kafka message timestamp
  // The change's place among its message's changes: with topic, partition and offset, the
  // position an appended row is written once by; no_index where the position is not a real
  // one (a file's records numbered from 0, a letter from before sluice kept the index).
  uint32_t index = 0;
  static constexpr uint32_t no_index = UINT32_MAX;
};

struct source_context {
  std::string tx;             // source transaction id, empty when unknown
  timestamp_ns source_ts{0};  // when the source committed the change
  read_method read = read_method::cdc;
  message_origin origin;
};

// One normalized change (SPEC §2): what every decoder produces and the merge consumes.
struct change {
  op_kind op = op_kind::upsert;
  table_entry* table = nullptr;
  // Empty for keyless tables. A truncate's: empty (the whole table), or the shard it is
  // confined to, a key of the shard column alone (ByLogicalTableRouter).
  row_key key;
  std::optional<row_key> old_key;  // set for a key change: the key the row leaves
  image after;                     // upserts: the row image; deletes: usually empty
  bool partial = false;            // the image may omit columns (absent ≠ null)
  // The types of the image's columns as the stream gave them (shared by the changes of one
  // schema); null when the format carries none (Datastream JSON, DSQL, schemaless Debezium).
  shared_column_types types;
  csn seq;
  source_context source;
};

}  // namespace sluice
