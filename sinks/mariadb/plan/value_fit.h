#pragma once

#include <vector>

#include "core/model/batch_records.h"
#include "sinks/mariadb/sql/table_shape.h"
#include "sinks/plan/table_plan.h"

namespace sluice::mdb {

// Values a MariaDB column cannot hold as they came (SPEC §3 "Avro and column types", §6b; the
// model: postgres/plan/value_fit.h). Each is a dead letter (kind rejected) naming the table,
// the column, its type and the value, instead of what MariaDB does with it even in strict mode:
// - decimal(p,s) given more than s fractional digits: rounded, with only a note (12.345 is
//   12.35). More than p − s integer digits, or a negative value for an unsigned decimal:
//   refused by the server (1264), but the whole statement fails, not the row.
// - an integer column given a fraction: rounded without even a note ('1.5' is 2 in an int).
//   Integers written otherwise (1e3, 1.0, ' 7 ') are the integer they denote; out of the
//   column's range (tinyint…bigint, signed or unsigned) is refused.
// - varchar(n) / char(n) given more than n characters (code points, as MariaDB counts them):
//   refused, except that trailing spaces beyond n are cut with a note — sluice refuses those as
//   well, since the binary NO PAD collations of its text keys tell `a` from `a `.
// - binary(n) / varbinary(n) given more than n bytes; tinytext / text / mediumtext and the
//   blobs of the same sizes given more than 255 / 65,535 / 16,777,215 bytes.
// - a boolean column (tinyint(1)) given anything but a boolean, 0 or 1 (MariaDB would store 2).
// Bytes into a text column are checked as the base64 text they are written as; a boolean into
// a numeric column as 1 or 0. For numeric columns, values of other kinds (JSON, bytes) are left
// to the server's strict conversion, whose failures the applier isolates. A stream type wider
// than the column (auto.evolve.widen off) is the usual cause: the reason says so.
//
// Runs once the batch's shapes are current (after table_ddl::refresh), before the writes: marks
// the items rejected and appends their letters; key columns are checked as well. Nothing is
// checked for a column whose type has no bound (longtext, json, float, datetime…).
void reject_unfit_values(table_plan& plan, const table_shape& shape,
                         std::vector<dead_letter>& rejects);

}  // namespace sluice::mdb
