#pragma once

#include <optional>
#include <string>
#include <vector>

#include <simdjson.h>

#include "core/catalog/table_catalog.h"
#include "schemas/common/decoder.h"
#include "schemas/common/padded_buffer.h"
#include "schemas/debezium/debezium_envelope.h"

namespace sluice {

struct dsql_options {
  decode_limits limits;
};

// Decodes Aurora DSQL CDC records (SPEC §3; seed 004): one `full` record, one change.
// DSQL's envelope is Debezium's near relative (op, before, after, source), so it is read by
// the same debezium_envelope_reader, without the schema wrapper.
//
//   decode(msg):
//     null value (tombstone)            -> nothing, no error
//     too big                           -> too_large
//     copy into the padded buffer, On-Demand parse, read and validate every byte
//     type    <- "full"; "chunked" / "fragment" -> unsupported (reassembly comes later)
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
class dsql_decoder final : public decoder {
 public:
  dsql_decoder(table_catalog& catalog, dsql_options options);

  std::optional<error> decode(const raw_message& msg, decode_output& out) override;

 private:
  result<change> to_change(const raw_message& msg);
  std::optional<error> record_type() const;
  error unsupported_chunks() const;
  result<table_entry*> table();
  result<timestamp_ns> commit_time() const;
  std::optional<error> key(change& c);

  table_catalog& _catalog;
  dsql_options _options;
  simdjson::ondemand::parser _parser;
  padded_buffer _buffer;
  debezium_envelope _record;
  debezium_envelope_reader _reader;
  csn_builder _builder;
  std::vector<column_class> _key_classes;  // scratch
  table_entry* _last_table = nullptr;      // most messages name the table the previous one did
};

}  // namespace sluice
