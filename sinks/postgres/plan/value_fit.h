#pragma once

#include <string>
#include <vector>

#include "core/model/batch_records.h"
#include "sinks/plan/table_plan.h"
#include "sinks/postgres/sql/table_shape.h"

namespace sluice {

// Values a target column cannot hold (SPEC §3 "Avro and column types"): a string longer than
// its varchar(n) or char(n), an integer outside its smallint/integer/bigint or not an integer
// at all, a number with more integer digits than its numeric(p,s) allows. Such a row is a
// dead letter (kind rejected) naming the table, the column, its type and the value — where
// PostgreSQL would fail the whole statement with "value too long for type character
// varying(40)" and leave the isolation to find which row and say nothing of which column. A
// stream type wider than the column (auto.evolve.widen off) is the usual cause: the reason
// says so. Other types are left to PostgreSQL's own input checks.
//
// Runs once the batch's shapes are current (after table_ddl::refresh), before the writes:
// marks the items rejected and appends their letters. Nothing is checked for a column whose
// type has no bound.
void reject_unfit_values(table_plan& plan, const table_shape& shape,
                         std::vector<dead_letter>& rejects);

}  // namespace sluice
