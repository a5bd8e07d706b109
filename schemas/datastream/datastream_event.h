#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <simdjson.h>

#include "core/model/result.h"
#include "core/model/value.h"
#include "schemas/common/json_value_reader.h"

namespace sluice {

// The members of a Datastream event's envelope and source_metadata that the decoder reads
// (SPEC §3). Other members are validated and their names checked for duplicates, not kept.
enum class datastream_member : uint8_t {
  // Envelope (generic metadata).
  read_method,
  source_timestamp,
  sort_keys,
  // source_metadata: the table.
  database,
  database_id,
  schema,
  table,
  collection,
  object_name,
  // source_metadata: the operation and the key.
  is_deleted,
  change_type,
  mod_type,
  primary_keys,
  replication_index,
  // source_metadata: the transaction.
  tx_id,
  transaction_id,
  xid,
  server_transaction_id,
  gtid,
  // source_metadata: positions (MongoDB's ts/clusterTime may also sit in the envelope).
  log_file,
  log_position,
  binlog_file,
  binlog_position,
  scn,
  rs_id,
  ssn,
  lsn,
  commit_timestamp,
  record_sequence,
  mod_index,
  mod_number,
  change_stream_name,
  physical_location,
  ts,
  cluster_time,  // "clusterTime"
  count,
};

// The member's name as Datastream writes it.
std::string_view name_of(datastream_member member);
// The member a name stands for, if the decoder reads it.
std::optional<datastream_member> datastream_member_named(std::string_view name);

// One Datastream event as read from its JSON (SPEC §3): the generic metadata, the
// source_metadata members and the payload. Every byte of the event has been validated.
// Views point into the padded message and the parser's string buffer: valid until the next
// parse. Lifecycle: one per decoder, cleared and refilled for each message (its vectors keep
// their capacity). Threading: as its decoder.
struct datastream_event {
  // A member of the envelope or of source_metadata. For an object or an array, its scalars
  // are leaves[first_leaf, first_leaf + leaf_count), depth-first.
  struct field {
    std::string_view name;
    json_token token;
    uint32_t first_leaf = 0;
    uint32_t leaf_count = 0;
  };
  // The known members of one object, by datastream_member; the first one when a name
  // repeats (the reader then fails the event anyway).
  class members {
   public:
    const field* get(datastream_member m) const {
      return (_present >> index(m)) & 1 ? &_fields[index(m)] : nullptr;
    }
    // The slot to read a member into, now marked present; nullptr when it was already there
    // (the first one is kept).
    field* claim(datastream_member m) {
      const uint64_t bit = uint64_t{1} << index(m);
      if (_present & bit) return nullptr;
      _present |= bit;
      return &_fields[index(m)];
    }
    void clear() { _present = 0; }

   private:
    static size_t index(datastream_member m) { return static_cast<size_t>(m); }
    static_assert(static_cast<size_t>(datastream_member::count) <= 64);

    uint64_t _present = 0;
    std::array<field, static_cast<size_t>(datastream_member::count)> _fields;
  };

  members envelope;  // generic metadata: read_method, source_timestamp, sort_keys…
  members metadata;  // source_metadata
  std::vector<json_leaf> leaves;
  image payload;  // column name -> value, as the source gave them; written in place
  bool has_metadata = false;
  bool has_payload = false;

  void clear();
  const field* top(datastream_member m) const { return envelope.get(m); }
  const field* meta(datastream_member m) const { return metadata.get(m); }
  std::span<const json_leaf> leaves_of(const field& f) const {
    return std::span<const json_leaf>(leaves).subspan(f.first_leaf, f.leaf_count);
  }
};

// Reads events from documents the parser has just opened, in one pass: each member goes to
// its slot as it is met. Fails on invalid JSON, a root that is not an object, a payload or
// source_metadata that is not an object, duplicate names, more payload columns than
// max_columns and nesting deeper than max_depth. Missing members are not errors here: the
// decoder decides what it needs.
//
// Lifecycle: one per decoder. Threading: as its decoder.
class datastream_event_reader {
 public:
  datastream_event_reader(size_t max_depth, size_t max_columns)
      : _values(max_depth), _max_columns(max_columns) {}

  // document: the bytes the parser was given, for error offsets.
  std::optional<error> read(simdjson::ondemand::document& doc, std::string_view document,
                            datastream_event& out);

 private:
  // The names met in one object, for the duplicate check: every name in order, the names
  // that have no slot, and whether a slot was filled twice.
  struct names_seen {
    std::vector<std::string_view> all;
    std::vector<std::string_view> unknown;
    bool repeated = false;

    void clear() {
      all.clear();
      unknown.clear();
      repeated = false;
    }
  };

  std::optional<error> read_payload(simdjson::ondemand::value& v, datastream_event& out);
  std::optional<error> read_fields(simdjson::ondemand::value& v, datastream_event& out);
  std::optional<error> read_field(std::string_view prefix, std::string_view name,
                                  simdjson::ondemand::value& v, datastream_event::members& into,
                                  names_seen& names, datastream_event& out);
  std::optional<error> check_unique(names_seen& names, std::string_view where);
  std::optional<error> check_payload_unique(const image& payload, bool same_as_unique);

  json_value_reader _values;
  size_t _max_columns;
  names_seen _top_names;
  names_seen _meta_names;
  std::vector<std::string_view> _names;  // scratch for the payload's duplicate check
  // The column names of the last payload found free of duplicates, in order: a payload
  // naming the same columns (most of a topic's events) needs no check of its own.
  std::vector<std::string> _unique_columns;
  bool _payload_same_as_unique = false;  // read_payload() met exactly _unique_columns
  datastream_event::field _repeated;     // scratch: a member given twice (an error later)
};

}  // namespace sluice
