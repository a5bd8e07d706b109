#include "schemas/avro/avro_column_type.h"

namespace sluice {
namespace {

column_type of(type_id id, int32_t precision = column_type::no_precision) {
  column_type t;
  t.id = id;
  t.precision = precision;
  return t;
}

column_type of_logical(const avro_node& n) {
  switch (n.logical) {
    case avro_logical::decimal: {
      column_type t = of(type_id::decimal);
      if (n.precision > 0) {
        t.precision = n.precision;
        t.scale = n.scale;
      }
      return t;
    }
    case avro_logical::date:
      return of(type_id::date);
    case avro_logical::time_millis:
      return of(type_id::time, 3);
    case avro_logical::time_micros:
      return of(type_id::time, 6);
    case avro_logical::timestamp_millis:
      return of(type_id::timestamptz, 3);
    case avro_logical::timestamp_micros:
      return of(type_id::timestamptz, 6);
    case avro_logical::local_timestamp_millis:
      return of(type_id::timestamp, 3);
    case avro_logical::local_timestamp_micros:
    case avro_logical::datetime:
      return of(type_id::timestamp, 6);
    case avro_logical::uuid:
      return of(type_id::uuid);
    case avro_logical::json:
      return of(type_id::json);
    case avro_logical::number:
      return of(type_id::decimal);
    case avro_logical::time_interval_micros:
    case avro_logical::interval:
      return of(type_id::interval);
    case avro_logical::none:
      break;
  }
  return of(type_id::unknown);
}

}  // namespace

column_type avro_column_type(const avro_node& node) {
  const avro_node& n = node.nullable_of() ? *node.nullable_of() : node;
  if (n.logical != avro_logical::none) return of_logical(n);
  switch (n.kind) {
    case avro_kind::boolean:
      return of(type_id::boolean);
    case avro_kind::int32:
      return of(type_id::int32);
    case avro_kind::int64:
      return of(type_id::int64);
    case avro_kind::float32:
      return of(type_id::float32);
    case avro_kind::float64:
      return of(type_id::float64);
    case avro_kind::bytes:
    case avro_kind::fixed:
      return of(type_id::bytes);
    case avro_kind::string:
      return of(type_id::string);
    case avro_kind::enumeration:
      return of(type_id::text);
    case avro_kind::null:
      return of(type_id::unknown);
    case avro_kind::record:
    case avro_kind::array:
    case avro_kind::map:
    case avro_kind::union_of:
      return of(type_id::json);
  }
  return of(type_id::unknown);
}

}  // namespace sluice
