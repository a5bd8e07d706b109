#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>

#include "connector/config/config.h"
#include "connector/prepare/transforms/change_transform.h"
#include "connector/prepare/transforms/derived_types.h"
#include "core/model/column_type.h"

namespace sluice {

// Kafka Connect's Cast$Value: the columns named in `spec` (field:type, Connect's types int8,
// int16, int32, int64, float32, float64, boolean, string) take the new type, value and column
// type alike:
//
//   number  -> integer  the fraction truncated toward zero; out of the type's range: an error
//   number  -> float    rounded to the nearest float32/float64
//   number  -> boolean  its integer part is not zero (Connect's longValue() != 0)
//   boolean -> number   1 or 0
//   string  -> integer  Java's parseInt: [+-]digits, nothing else
//   string  -> float    a decimal number, NaN, Infinity, -Infinity (surrounding blanks allowed)
//   string  -> boolean  "true" in any case is true, anything else false (Boolean.parseBoolean)
//   any     -> string   its text; bytes as base64
//   json    -> any      refused, as Connect refuses structs, maps and arrays
//   bytes   -> non-string, date/time text -> number or boolean: refused (the reason says why)
//
// A refused or unreadable value makes the change a dead letter; null stays null and a column
// absent from a partial image stays absent. A change's column types are rebuilt once per
// schema (the cast columns take int16…string; int8 becomes int16: there is no one-byte
// type), never per change.
//
// Lifecycle: built once from the configuration, owned by the chain. Threading: one thread
// (the types cache).
class cast_transform final : public change_transform {
 public:
  enum class target : uint8_t { int8, int16, int32, int64, float32, float64, boolean, string };

  // Throws std::invalid_argument ("transforms.<name>.spec: …") for a spec that is empty, casts
  // the whole value (sluice's value is always a row), names an unknown type or a column twice.
  cast_transform(const std::string& name, const transform_config& t);

  std::variant<outcome, std::string> apply(change& c, const record_context& r) override;

 private:
  shared_column_types types_for(const shared_column_types& types);
  shared_column_types derive(const column_types& types) const;

  std::string _who;  // "transforms.<name>"
  std::unordered_map<std::string, target> _casts;
  // A schema's columns with the casts' types, the source kept alive so that its address is
  // never reused for another while cached.
  derived_types _types;  // the converted columns' types, once per schema
};

}  // namespace sluice
