#pragma once

#include <string>

#include "core/model/column_type.h"
#include "schemas/debezium/debezium_envelope.h"

namespace sluice {

// What a Debezium column holds (SPEC §3, "Avro and column types"), from one field of the
// Connect schema of a {schema, payload} message. Pure functions; docs/column-types.md
// ("Debezium") lists the mapping.
//
//   the Connect type      int8/int16 -> int16, int32, int64, float32 ("float"), float64
//                         ("double"), boolean, string, bytes, array -> its items' type as an
//                         array, struct/map -> json
//   its logical name      Decimal -> decimal(p,s) (unconstrained without
//                         connect.decimal.precision), VariableScaleDecimal -> decimal, Date,
//                         Time/MicroTime/NanoTime -> time(3/6/6), Timestamp/MicroTimestamp/
//                         NanoTimestamp -> timestamp(3/6/6), ZonedTimestamp -> timestamptz,
//                         ZonedTime -> timetz, Uuid, Json, Xml, Enum/EnumSet/Bits -> text,
//                         Interval/MicroDuration -> interval
//   the source's type     with column.propagate.source.type, the
//                         __debezium.source.column.type/length/scale parameters win when they
//                         name a PostgreSQL or MySQL type sluice knows ("VARCHAR" 80 ->
//                         string(80), "NUMERIC" 12/2 -> decimal(12,2), "_INT4" -> int32[]);
//                         other names (a PostgreSQL enum's) keep the Connect-derived type.
column_type debezium_column_type(const connect_field_schema& field);

// The source's own spelling of the column's type from the propagated parameters
// ("VARCHAR(80)", "NUMERIC(12,2)", "TIMESTAMPTZ(6)", "_INT4"); empty without them.
std::string debezium_source_type(const connect_field_schema& field);

}  // namespace sluice
