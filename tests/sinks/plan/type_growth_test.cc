#include "sinks/plan/type_growth.h"

#include <doctest/doctest.h>

// auto.evolve.widen's rule, the same for PostgreSQL and MariaDB (their table_ddl).

using namespace sluice;

namespace {

column_type of(type_id id, int32_t precision = column_type::no_precision, int32_t scale = 0,
               int32_t length = column_type::no_length) {
  column_type t;
  t.id = id;
  t.precision = precision;
  t.scale = scale;
  t.length = length;
  return t;
}

}  // namespace

TEST_CASE("a column grew when the stream states a larger bound of the same family") {
  CHECK(type_grew(of(type_id::string, -1, 0, 40), of(type_id::string, -1, 0, 80)));
  CHECK(type_grew(of(type_id::int32), of(type_id::int64)));
  CHECK(type_grew(of(type_id::float32), of(type_id::float64)));
  CHECK(type_grew(of(type_id::decimal, 10, 2), of(type_id::decimal, 14, 2)));
  CHECK(type_grew(of(type_id::timestamptz, 3), of(type_id::timestamptz, 6)));
}

TEST_CASE("a column did not grow when the stream is narrower, unbounded or of another family") {
  CHECK_FALSE(type_grew(of(type_id::string, -1, 0, 80), of(type_id::string, -1, 0, 40)));
  CHECK_FALSE(type_grew(of(type_id::string, -1, 0, 80), of(type_id::string, -1, 0, 80)));
  // Debezium without column.propagate.source.type states no length: it says nothing.
  CHECK_FALSE(type_grew(of(type_id::string, -1, 0, 40), of(type_id::string)));
  CHECK_FALSE(type_grew(of(type_id::int64), of(type_id::int32)));
  CHECK_FALSE(type_grew(of(type_id::string, -1, 0, 40), of(type_id::int64)));
}
