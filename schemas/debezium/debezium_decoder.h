#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <simdjson.h>

#include "core/catalog/table_catalog.h"
#include "schemas/common/decoder.h"
#include "schemas/common/padded_buffer.h"
#include "schemas/debezium/debezium_avro_reader.h"
#include "schemas/debezium/debezium_envelope.h"
#include "schemas/debezium/debezium_ordering.h"
#include "schemas/debezium/debezium_type_cache.h"
#include "schemas/debezium/debezium_value_decoder.h"

namespace sluice {

struct debezium_options {
  decode_limits limits;
  // The connector's unavailable.value.placeholder: a column holding it (as text, as base64
  // for binary columns, or inside an array) was not captured and keeps its stored value.
  std::string unavailable_value = "__debezium_unavailable_value";
  // Where Confluent-framed messages find their writer schemas (schema.registry.url); null:
  // such a message is a dead letter saying no registry is configured.
  std::shared_ptr<schema_source> registry = nullptr;
};

// Decodes Debezium change events (SPEC §3): JSON, with or without the JsonConverter's
// {schema, payload} wrapper, and Avro in the Confluent wire format (AvroConverter: magic byte
// 0, schema id, Avro binary; the writer schema from the registry, debezium_avro_reader), for
// values and keys alike. One event, at most one change.
//
//   decode(msg):
//     null value (tombstone), {schema, payload: null}, op "m" (a logical-decoding message)
//                                        -> nothing, no error
//     too big                            -> too_large
//     first byte 0 (a Confluent frame)  -> the writer schema of its id from the registry
//                                          (an unknown id: unsupported; an unreachable
//                                          registry is waited out inside schema(), which may
//                                          throw schema_source_stopped / _refused), the body
//                                          read into the envelope as JsonConverter would
//                                          have written it
//     else copy into the padded buffer, On-Demand parse, read and validate every byte
//     op      <- c, u, r -> upsert; d -> delete; t -> truncate
//     table   <- source.db / source.schema / source.table (MySQL: db, no schema), interned
//     read    <- r -> backfill (snapshot); else cdc
//     csn     <- debezium_ordering (PostgreSQL lsn + sequence, MySQL file/pos/row, SQL Server
//                commit/change LSN, Oracle scn; snapshot events below streamed ones)
//     image   <- after (upserts) or before (deletes), logical types decoded with the
//                schema, unavailable placeholders left out (the change is then partial)
//     types   <- the column types the schema says (debezium_type_cache: one shared
//                column_types per table while its schema stays the same); null without one
//     key     <- configured key columns (tables.<t>.primary.key.fields), else the field
//                names of the Kafka message key (a JSON object, itself perhaps wrapped),
//                else key columns the catalog learned, else none (keyless); values from the
//                image, else from the message key
//     source  <- transaction.id | source.txId, source ts_ns | ts_us | ts_ms, Kafka origin
//
// A key change arrives as a delete of the old key (then a tombstone) and a create of the new
// one: each decodes on its own. The message key is parsed only when the key columns or
// values must come from it, after the value's views are no longer needed (both documents
// share the parser).
//
// Stage: decode. Lifecycle: one per decode thread, for the life of the pipeline; it keeps
// its parser, buffer and scratch between messages. Threading: not thread-safe; the catalog
// is shared and only intern() is called on it (entries' key_columns and columns are read).
class debezium_decoder final : public decoder {
 public:
  debezium_decoder(table_catalog& catalog, debezium_options options);

  std::optional<error> decode(const raw_message& msg, decode_output& out) override;

 private:
  // Fills c; sets skip when the event holds no change (op "m").
  std::optional<error> to_change(const raw_message& msg, change& c, bool& skip);
  result<op_kind> op(bool& skip) const;
  result<table_entry*> table();
  std::string_view transaction() const;
  std::optional<error> key(const raw_message& msg, change& c);
  // Parses the message key into _key / _key_image once per message.
  std::optional<error> read_message_key(const raw_message& msg);
  // elided: for a value, where the reader may leave a known schema block out of the document.
  std::optional<error> parse(std::string_view bytes, std::string_view what,
                             simdjson::ondemand::document& doc,
                             simdjson::padded_string_view& padded, elided_schema* elided = nullptr);
  // A Confluent-framed value (into _event) or key (into _key).
  std::optional<error> read_avro(std::string_view bytes, bool key);

  table_catalog& _catalog;
  debezium_options _options;
  simdjson::ondemand::parser _parser;
  padded_buffer _buffer;
  debezium_envelope _event;
  debezium_envelope _key;  // the message key: its fields in `after`, its schema
  debezium_envelope_reader _reader;
  std::unique_ptr<debezium_avro_reader> _avro;  // made at the first Avro message
  debezium_ordering _ordering;
  debezium_value_decoder _values;
  decode_budget _budget{_options.limits.max_message_bytes};  // the message's values
  debezium_type_cache _types;
  image _key_image;  // the message key's fields, decoded
  bool _key_read = false;
  std::vector<std::string> _key_columns;   // scratch
  std::vector<column_class> _key_classes;  // scratch
  table_entry* _last_table = nullptr;      // most messages name the table the previous one did
};

}  // namespace sluice
