#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <simdjson.h>

#include "core/model/change.h"
#include "core/model/column_type.h"
#include "core/model/value.h"
#include "schemas/common/padded_buffer.h"
#include "schemas/debezium/debezium_envelope.h"

namespace sluice {

// One entry of ExtractNewRecordState's add.fields: a member of the Debezium envelope (op,
// ts_ms), of its source block (source.lsn) or of its transaction block (transaction.id), and
// the column it becomes, named as Debezium names it (FieldReference): `<prefix><field>` for a
// bare name, `<prefix><block>_<field>` for a qualified one, `<prefix><new>` for `entry:new`.
// A bare name lives where Debezium looks for it: op, ts_ms, ts_us and ts_ns at the top, id,
// total_order and data_collection_order in transaction, any other in source.
struct envelope_field {
  enum class block : uint8_t { top, source, transaction };
  block in = block::top;
  std::string field;   // the member's name
  std::string column;  // the column it becomes
  // As Debezium's schemas type it (op a string, the ts_* int64, …); unknown where connectors
  // differ (source.txId: int64 in PostgreSQL, a string in Oracle): the JSON kind then rules.
  column_type type;
};

// An add.fields entry read; else why not (an unknown member is named with the known ones).
std::variant<envelope_field, std::string> parse_envelope_field(std::string_view entry,
                                                               std::string_view prefix);

// A field's value from what the change itself keeps, for any message format: op when the
// change says it (a delete: d, a snapshot read: r), source.db, source.schema, source.table
// (the change's table; an empty part is null) and source.ts_ms/ts_us/ts_ns (the change's
// source timestamp; unknown is null). Nothing when only the envelope has it: op c or u, the
// top ts_*, transaction.*, every other source member.
std::optional<value> envelope_value_of_change(const envelope_field& f, const change& c);

// Reads the values of add.fields from a message's JSON envelope (Debezium's JsonConverter,
// with or without schemas): one parse of the message, every member checked as the decoder
// checks it. A member the message lacks (or a null block) gives null, where Debezium leaves
// out the field when its schema lacks it and writes null when the value is null: sluice's
// column list does not depend on the message.
//
// Lifecycle: one per transform; its parser and buffer are reused. Threading: one thread.
class envelope_field_reader {
 public:
  envelope_field_reader();

  // out[i] = the value of *fields[i]; else why the message cannot be read.
  std::optional<std::string> read(std::string_view json,
                                  std::span<const envelope_field* const> fields,
                                  std::vector<value>& out);

 private:
  // The decoder has bounded depth and columns already: these bounds never refuse more.
  debezium_envelope_reader _reader;
  debezium_envelope _event;
  padded_buffer _buffer;
  simdjson::ondemand::parser _parser;
};

}  // namespace sluice
