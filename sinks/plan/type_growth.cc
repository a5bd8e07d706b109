#include "sinks/plan/type_growth.h"

namespace sluice {
namespace {

bool is_integer(type_id id) {
  return id == type_id::int16 || id == type_id::int32 || id == type_id::int64;
}

}  // namespace

bool type_grew(const column_type& existing, const column_type& stream) {
  if (widens(stream, existing) || !widens(existing, stream)) return false;
  if (is_integer(existing.id) && is_integer(stream.id)) return true;
  if (existing.id == type_id::float32 && stream.id == type_id::float64) return true;
  if (existing.id != stream.id) return false;
  switch (stream.id) {
    case type_id::string:
      return stream.length != column_type::no_length;
    case type_id::decimal:
    case type_id::time:
    case type_id::timetz:
    case type_id::timestamp:
    case type_id::timestamptz:
      return stream.precision != column_type::no_precision;
    default:
      return false;
  }
}

}  // namespace sluice
