#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "connector/config/config.h"
#include "connector/prepare/transforms/change_transform.h"
#include "connector/prepare/transforms/derived_types.h"
#include "connector/prepare/transforms/java_date_format.h"
#include "core/model/column_type.h"

namespace sluice {

// Kafka Connect's TimestampConverter$Value on one column (`field`): its value, read as an
// instant, becomes `target_type`, in UTC as Connect's:
//
//   input (inferred from the value)                 output (value; column type)
//   a number: an integer count at unix.precision    unix:      an int64 count; int64
//   a string on a date/time/timestamp(tz) column:   Date:      "2024-01-15"; date
//     the decoders' text ("2024-01-15",             Time:      "11:30:00.123"; time
//     "11:30:00.5", "2024-01-15T11:30:00[Z|+01]")   Timestamp: "2024-01-15T11:30:00.123Z";
//   any other string: parsed with `format`                     timestamp (the Z is read by
//                                                              timestamp and timestamptz)
//                                                   string:    formatted with `format`; string
//
// A Date keeps the day (midnight UTC), a Time the time of day (on 1970-01-01). Instants keep
// microseconds (PostgreSQL's resolution) where Connect keeps milliseconds; nanoseconds are
// truncated. Null stays null, an absent column absent; a value that is no timestamp (a
// boolean, JSON, bytes, unparseable text, a fraction of a unix count, a year outside
// 1..9999) makes the change a dead letter. The format is translated once (java_date_format.h);
// the change's column types are rebuilt once per schema.
//
// Lifecycle: built once from the configuration, owned by the chain. Threading: one thread
// (the types cache).
class timestamp_converter final : public change_transform {
 public:
  enum class kind : uint8_t { string, unix, date, time, timestamp };
  enum class unix_unit : uint8_t { seconds, milliseconds, microseconds, nanoseconds };

  // Throws std::invalid_argument ("transforms.<name>.<setting>: …") for an empty field (the
  // whole value: sluice's value is always a row), an unknown target_type or unix_precision, a
  // missing format where target_type is string, or a format that is not supported.
  timestamp_converter(const std::string& name, const transform_config& t);

  std::variant<outcome, std::string> apply(change& c, const record_context& r) override;

 private:
  shared_column_types types_for(const shared_column_types& types);
  shared_column_types derive(const column_types& types) const;

  std::string _who;  // "transforms.<name>"
  std::string _field;
  kind _target = kind::timestamp;
  unix_unit _unit = unix_unit::milliseconds;
  std::optional<java_date_format> _format;
  // A schema's columns with the field's new type, the source kept alive so that its address
  // is never reused for another while cached.
  derived_types _types;  // the converted columns' types, once per schema
};

}  // namespace sluice
