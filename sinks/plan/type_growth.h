#pragma once

#include "core/model/column_type.h"

namespace sluice {

// auto.evolve.widen, for every target's table_ddl: whether the stream's type says an existing
// column grew — the same family with a stated, larger bound (a stream that does not state a
// length or precision, Debezium without column.propagate.source.type, says nothing about
// it), or a larger integer or float. Never a change of family: a text column the stream calls
// an integer stays text. `existing` is the column's type read back into the portable types
// (a target without zoned types never reads back timetz or timestamptz).
bool type_grew(const column_type& existing, const column_type& stream);

}  // namespace sluice
