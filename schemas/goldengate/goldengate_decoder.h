#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <simdjson.h>

#include "core/catalog/table_catalog.h"
#include "schemas/common/decoder.h"
#include "schemas/common/padded_buffer.h"
#include "schemas/common/timestamp_parser.h"
#include "schemas/goldengate/goldengate_binary_values.h"
#include "schemas/goldengate/goldengate_names.h"
#include "schemas/goldengate/goldengate_options.h"
#include "schemas/goldengate/goldengate_ordering.h"
#include "schemas/goldengate/goldengate_record.h"
#include "schemas/goldengate/goldengate_schema_cache.h"

namespace sluice {

// What the last STREAM_METADATA record said about the producer and the source (for
// diagnostics; nothing is applied from it).
struct goldengate_stream_info {
  std::string producer_name;
  std::string producer_version;
  std::string database_name;
  std::string database_version;
  std::string database_time_zone;
  uint64_t records = 0;  // STREAM_METADATA records seen
};

// Decodes Oracle GoldenGate Data Streams JSON records (SPEC §3; seed 003). The record kind
// comes from its shape:
//
//   decode(msg):
//     null value (tombstone)          -> nothing, no error
//     too big                         -> too_large
//     copy into the padded buffer, On-Demand parse, read and validate every byte;
//     a CloudEvents envelope (specversion + data) is unwrapped, data being an object or a
//     JSON string (parsed in turn)
//     no op_type, $schema or id+properties -> JSON Schema record: cached by id with the
//                                        column types it declares; a table of that name this
//                                        decoder has seen gets them (see OBJECT_METADATA),
//                                        and a catalog_update goes out when its learned
//                                        columns' types changed; nothing else out
//     op_type STREAM_METADATA         -> stream_info() updated, nothing out
//     op_type OBJECT_METADATA         -> the catalog entry of qual_table learns the columns,
//                                        their classes, portable types (goldengate_types.h;
//                                        a JSON primitive refined by the table's JSON Schema
//                                        record) and the key flags (unless the key is
//                                        configured), and a catalog_update goes out
//     op_type DDL (+ ddl)             -> a ddl_record goes out (table from ddl.object)
//     op_type INSERT/UPDATE/DELETE/UPSERT (as configured) -> one change:
//        table  <- qual_table ("SCHEMA.TABLE" or "CATALOG.SCHEMA.TABLE"), interned
//        key    <- configured key | the record's primary_keys | OBJECT_METADATA key flags |
//                  the topic's default key columns (none: keyless, appended by the applier),
//                  canonicalized with the catalog's column classes
//        INSERT, UPSERT  upsert of `after` (a full image)
//        UPDATE          upsert of `after`, plus the `before` columns `after` lacks (a column
//                        an update leaves alone holds its before value at the update's CSN);
//                        partial unless the catalog knows the table's columns and the image
//                        has them all; a before key unlike the after key is a key change
//                        (old_key)
//        DELETE          delete of the `before` key; `before` is kept as the image
//        csn    <- goldengate_ordering; source <- xid, op_ts, the Kafka origin
//        types  <- the table's type snapshot (table_entry::types: rebuilt when its metadata
//                  or schema changes, shared by every change until then); for a table no
//                  OBJECT_METADATA described, the types of its JSON Schema record
//     any other op_type               -> unknown_op
//
// Records of every kind may be sent again and on every partition: decoding one twice
// produces the same output and leaves the catalog as it was. An OBJECT_METADATA record older
// (by CSN, when it has one) than the last one this decoder applied to the same table does
// not change the catalog entry.
//
// `pos` is read and validated but not kept: the change model has no field for an opaque
// source position.
//
// Stage: decode. Lifecycle: one per topic and decode thread, for the life of the pipeline;
// it keeps its parser, buffers and scratch between messages. Threading: not thread-safe; the
// catalog is shared (intern() is thread-safe) and the entries' learned fields are written
// here, by the decode stage, which owns them (table_catalog.h).
class goldengate_decoder final : public decoder {
 public:
  // Throws std::invalid_argument when the options are invalid (an unknown source_timezone,
  // field or op name): a configuration error, found at start-up. check() reports the same as
  // a value, for configuration validation.
  goldengate_decoder(table_catalog& catalog, goldengate_options options);
  static std::optional<error> check(const goldengate_options& options);

  std::optional<error> decode(const raw_message& msg, decode_output& out) override;

  // The JSON Schema record last seen with this id (its JSON text), or nullptr.
  const std::string* schema(std::string_view id) const { return _schemas.text(id); }
  size_t schema_count() const { return _schemas.size(); }
  const goldengate_stream_info& stream_info() const { return _stream; }

  // The cache holds at most this many bytes of schema text: past it, new ids are not cached
  // (re-sent ones replace their text when it fits), so hostile input cannot grow it unbounded.
  static constexpr size_t max_cached_schema_bytes = goldengate_schema_cache::max_bytes;

 private:
  using slot = goldengate_record::slot;

  std::optional<error> read(std::string_view bytes);
  std::optional<error> on_schema(const raw_message& msg, decode_output& out);
  void on_stream_metadata();
  std::optional<error> on_object_metadata(const raw_message& msg, decode_output& out);
  std::optional<error> on_ddl(const raw_message& msg, decode_output& out);
  std::optional<error> on_dml(goldengate_op op, const raw_message& msg, decode_output& out);

  result<table_entry*> table();
  // The columns the JSON Schema record of `name` declares (its id names the table), or null.
  const std::vector<column_types::column>* schema_columns(const table_name& name) const {
    return _schemas.columns(name);
  }
  // Gives `t` the types of its JSON Schema record: refines its learned columns (see
  // refine_types), or for a table without learned columns, makes them its type snapshot.
  // True when learned columns changed.
  bool apply_schema(table_entry& t, const std::vector<column_types::column>& schema);
  result<std::optional<timestamp_ns>> op_ts() const;
  result<csn> sequence(std::optional<timestamp_ns> ts, kafka_offset offset);
  result<std::string_view> transaction() const;
  // The key columns of a record of `table` (see decode()); empty: keyless.
  result<const std::vector<std::string>*> key_columns(const table_entry& table);
  // The key and old key of a DML record into c (a reused change), from the record's images.
  std::optional<error> fill_dml(goldengate_op op, const table_entry& table,
                                const std::vector<std::string>& key, bool has_before, change& c);
  // The key of `columns` read from img, else from fallback, into out (its capacity reused);
  // `which` names img in errors (its label is built only then: it is a string).
  std::optional<error> key_of(const table_entry& table, const std::vector<std::string>& columns,
                              const image& img, const image* fallback, goldengate_field which,
                              row_key& out);
  bool has_all(const image& img, const std::vector<std::string>& columns) const;
  bool covers_table(const table_entry& table, const image& img);
  void add_missing_columns(image& after, image& before);
  std::string label(goldengate_field f) const { return _names.label(f); }

  table_catalog& _catalog;
  goldengate_options _options;
  utc_offset _zone;
  goldengate_names _names;  // before _reader, which refers to it
  simdjson::ondemand::parser _parser;
  padded_buffer _buffer;
  padded_buffer _data_buffer;  // CloudEvents data sent as a JSON string
  goldengate_record _record;
  goldengate_record_reader _reader;
  goldengate_ordering _ordering;
  goldengate_schema_cache _schemas;  // after _names, which it refers to
  goldengate_binary_values _binary;
  std::map<table_name, table_entry*> _seen;         // every table this decoder interned
  std::map<const table_entry*, csn> _metadata_seq;  // CSN of the OBJECT_METADATA last learned
  goldengate_stream_info _stream;
  std::string _last_qual_table;  // most messages name the table the previous one did
  table_entry* _last_table = nullptr;
  std::vector<std::string> _key_columns;        // scratch: the record's primary_keys
  std::vector<column_class> _key_classes;       // scratch
  row_key _old_key;                             // scratch: an UPDATE's before key
  std::vector<std::string_view> _name_scratch;  // scratch
};

}  // namespace sluice
