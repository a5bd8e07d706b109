#pragma once

#include "core/model/column_type.h"
#include "schemas/avro/avro_schema_info.h"

namespace sluice {

// The portable column type of an Avro field (SPEC §3 "Avro and column types"), so that
// auto-created columns get real types. A nullable union ["null", T] is T.
//
//   boolean -> boolean      int -> int32           long -> int64
//   float -> float32        double -> float64      bytes, fixed -> bytes
//   string -> string        enum -> text
//   decimal(p,s) -> decimal(p,s)     date -> date
//   time-millis -> time(3)           time-micros -> time(6)
//   timestamp-millis -> timestamptz(3), timestamp-micros -> timestamptz(6)
//   local-timestamp-millis/micros -> timestamp(3)/(6)
//   uuid -> uuid     Datastream json -> json     Datastream number -> decimal
//   Datastream datetime -> timestamp(6)   interval, time-interval-micros -> interval
//   arrays, maps, other records, other unions -> json
column_type avro_column_type(const avro_node& node);

}  // namespace sluice
