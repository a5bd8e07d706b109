#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <simdjson.h>

#include "core/catalog/table_catalog.h"
#include "schemas/common/decoder.h"
#include "schemas/common/padded_buffer.h"
#include "schemas/common/timestamp_parser.h"
#include "schemas/datastream/datastream_avro_reader.h"
#include "schemas/datastream/datastream_event.h"
#include "schemas/datastream/datastream_ordering.h"
#include "schemas/registry/schema_source.h"

namespace sluice {

struct datastream_options {
  decode_limits limits;
  // The zone of timestamps written without one (the topic's `source.timezone`): "UTC", a
  // fixed offset "+HH:MM" / "-HH:MM" or an IANA name (see parse_source_zone).
  std::string source_timezone = "UTC";
  // Where Confluent-framed events find their writer schemas (schema.registry.url); null:
  // such a message is a dead letter saying no registry is configured.
  std::shared_ptr<schema_source> registry = nullptr;
};

// Decodes Google Datastream events (SPEC §3; seeds 000, 002), JSON or Avro: one event, one
// change.
//
//   decode(msg):
//     null value (tombstone)            -> nothing, no error
//     too big                           -> too_large
//     an Avro object container ("Obj\x01"): each record is read into the same event (through
//       datastream_avro_reader) and becomes one change by the rules below, typed by the
//       schema (change::types); any bad record fails the whole message
//     a Confluent frame (magic byte 0, schema id, one Avro record): the same, with the
//       writer schema of its id from the registry (unknown id: unsupported; an unreachable
//       registry is waited out inside schema(), which may throw schema_source_stopped /
//       schema_source_refused)
//     copy into the padded buffer, On-Demand parse, read and validate every byte
//     table   <- source_metadata database/schema/table (collection, object_name), interned
//     op      <- change_type (mod_type), else is_deleted
//     read    <- read_method (backfill | cdc); source <- read_method prefix or fields
//     key     <- payload values of primary_keys | replication_index | configured key columns
//                (none: keyless), canonicalized with the catalog's column classes
//     csn     <- datastream_ordering
//     source  <- tx_id…, source_timestamp, read method, Kafka origin
//
// An UPDATE-DELETE / UPDATE-INSERT pair (a key change) arrives as two messages and decodes
// as a delete of the old key and an upsert of the new one. Deletes keep the payload (the
// deleted row, as Datastream sends it) as their image.
//
// Stage: decode. Lifecycle: one per decode thread, for the life of the pipeline; it keeps
// its parser, buffer and scratch between messages. Threading: not thread-safe; the catalog
// is shared and only intern() is called on it (entries' key_columns and columns are read).
class datastream_decoder final : public decoder {
 public:
  // Throws std::invalid_argument when the options are invalid (an unknown
  // source_timezone): a configuration error, found at start-up. check() reports the same
  // as a value, for configuration validation.
  datastream_decoder(table_catalog& catalog, datastream_options options);
  static std::optional<error> check(const datastream_options& options);

  std::optional<error> decode(const raw_message& msg, decode_output& out) override;

 private:
  std::optional<error> decode_avro(const raw_message& msg, std::string_view bytes,
                                   decode_output& out);
  std::optional<error> decode_confluent(const raw_message& msg, std::string_view bytes,
                                        decode_output& out);
  // The records of the open container or frame, each one change.
  std::optional<error> decode_records(const raw_message& msg, decode_output& out);
  std::optional<error> to_change(const raw_message& msg, change& c);
  result<table_entry*> table();
  result<op_kind> op() const;
  result<std::optional<timestamp_ns>> source_timestamp() const;
  std::optional<error> key(const table_entry& table, row_key& key);
  std::string_view transaction() const;

  table_catalog& _catalog;
  datastream_options _options;
  source_zone _zone;
  simdjson::ondemand::parser _parser;
  padded_buffer _buffer;
  datastream_event _event;
  datastream_event_reader _reader;
  datastream_ordering _ordering;
  datastream_avro_reader _avro;
  std::vector<column_class> _key_classes;  // scratch
  table_entry* _last_table = nullptr;      // most messages name the table the previous one did
};

}  // namespace sluice
