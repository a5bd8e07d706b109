#pragma once

#include <optional>
#include <string>
#include <vector>

#include <simdjson.h>

#include "core/catalog/table_catalog.h"
#include "core/model/chunk_piece.h"
#include "schemas/common/decoder.h"
#include "schemas/common/padded_buffer.h"
#include "schemas/debezium/debezium_envelope.h"

namespace sluice {

struct dsql_options {
  decode_limits limits;
};

// The most fragments one chunked image may have (a bound on hostile input; DSQL splits at
// Kinesis' 1 MiB record limit, so this is far beyond any real image).
inline constexpr int64_t dsql_max_fragments = 1 << 16;

// Decodes Aurora DSQL CDC records (SPEC §3; seed 004): one `full` record, one change.
// DSQL's envelope is Debezium's near relative (op, before, after, source), so it is read by
// the same debezium_envelope_reader, without the schema wrapper.
//
//   decode(msg):
//     null value (tombstone)            -> nothing, no error
//     too big                           -> too_large
//     copy into the padded buffer, On-Demand parse, read and validate every byte
//     type    <- "full", else:
//                "chunked"  -> the header below is checked, then one chunk_piece (principal:
//                              chunked.<image>.chunk_id, total_fragments 1..65536, crc32c as a
//                              decimal string; payload = the record's bytes). The chunked
//                              image must be the one the op needs (after for c/u, before for
//                              d); both images chunked at once is refused as unsupported.
//                "fragment" -> one chunk_piece (chunk_id, index 0..65535, data: a string)
//                The sink reassembles them and calls decode_chunked() (core/model/chunk_piece.h).
//     op      <- c, u -> upsert (DSQL may send updates as c); d -> delete
//     table   <- source.db / source.schema / source.table, interned
//     csn     <- [1, source.ts_ns, source.txId] (the top-level ts_ns is processing time
//                and takes no part; records arrive on any partition in any order)
//     image   <- after (upserts) or before (deletes: the key columns)
//     key     <- upserts: the catalog's key columns (configured, or learned from the target
//                table's primary key by the connector); none known -> missing_key, never
//                keyless (DSQL tables always have a key). Deletes: the same columns when
//                known, else the fields of `before`, in their order.
//     source  <- txId, source.ts_ns, read method cdc, Kafka origin
//
// Schema evolution shows as new column names: nothing to do here.
//
// Stage: decode. Lifecycle: one per decode thread, for the life of the pipeline; it keeps
// its parser, buffer and scratch between messages. Threading: not thread-safe; the catalog
// is shared and only intern() is called on it (entries' key_columns and columns are read).
class dsql_decoder final : public decoder, public chunk_decoder {
 public:
  dsql_decoder(table_catalog& catalog, dsql_options options);

  std::optional<error> decode(const raw_message& msg, decode_output& out) override;
  // A principal record with its reassembled image: the change it stands for.
  result<change> decode_chunked(const raw_message& principal, std::string_view image) override;

 private:
  enum class record_kind : uint8_t { full, chunked, fragment };
  // Where a principal's chunked image goes, and how to check it.
  struct chunk_ref {
    bool after = true;  // chunked.after, else chunked.before
    std::string_view chunk_id;
    int32_t total = 0;
    uint32_t crc = 0;
  };

  std::optional<error> parse(const raw_message& msg);
  // Fills c (a fresh or reused change: every field it carries is overwritten) from the
  // record parsed last. to_change: all of it; header: op, table, CSN and source context.
  std::optional<error> to_change(const raw_message& msg, change& c);
  std::optional<error> header(const raw_message& msg, change& c);
  result<record_kind> record_type() const;
  result<chunk_ref> chunk_of(op_kind op);
  result<chunk_piece> principal_piece(const raw_message& msg);
  result<chunk_piece> fragment_piece(const raw_message& msg) const;
  result<table_entry*> table();
  result<timestamp_ns> commit_time() const;
  std::optional<error> key(change& c);

  table_catalog& _catalog;
  dsql_options _options;
  simdjson::ondemand::parser _parser;
  padded_buffer _buffer;
  // A second document next to the record: its `chunked` block, or a reassembled image
  // (whose views must live while the record's do).
  simdjson::ondemand::parser _side_parser;
  padded_buffer _side_buffer;
  std::string _side_text;
  debezium_envelope _image;
  debezium_envelope _record;
  debezium_envelope_reader _reader;
  csn_builder _builder;
  std::vector<column_class> _key_classes;  // scratch
  table_entry* _last_table = nullptr;      // most messages name the table the previous one did
};

}  // namespace sluice
