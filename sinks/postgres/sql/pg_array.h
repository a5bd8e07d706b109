#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace sluice {

// Builds the text form of a one-dimensional PostgreSQL array ('{"a",NULL,"b\"c"}'), the way
// a batch's values travel as one statement parameter to unnest() (SPEC §4 "Bulk path").
// Values are always data: quoted and escaped here, cast by the statement, never spliced into
// SQL. Reusable: take() hands the text out and starts a new array.
class pg_array {
 public:
  pg_array() { clear(); }

  void add_null();
  void add(std::string_view text);
  // Bytes for a bytea[] element, in PostgreSQL's hex form (\x0a0b).
  void add_bytea(std::string_view bytes);
  void add_int(int64_t v);
  void add_bool(bool v);

  size_t size() const { return _count; }
  std::string take();
  void clear();

 private:
  void separate();
  std::string _text;
  size_t _count = 0;
};

// PostgreSQL's hex text form of bytea (\x0a0b), for a scalar bytea parameter.
std::string bytea_hex(std::string_view bytes);

}  // namespace sluice
