#pragma once

#include <string>
#include <vector>

#include "core/merge/merged_batch.h"
#include "core/model/batch_records.h"
#include "sinks/plan/table_plan.h"

namespace sluice {

// Turning a whole table's part of a batch into dead letters, for refusals that are about the
// table rather than one row: it cannot be routed, its target is reserved or already fed by
// another source, its DDL failed. Every row, keyless change and truncate gets a letter.

// A table the planner made no plan for (it could not be routed); target may be null.
void reject_rows(const table_rows& rows, const std::string& reason, dead_letter_kind kind,
                 const target_table* target, std::vector<dead_letter>& rejects);

// Every item of a plan not yet rejected, and its truncate (which it then no longer applies).
// The reason is prefixed with the target's name.
void reject_plan(table_plan& plan, const std::string& reason, dead_letter_kind kind,
                 std::vector<dead_letter>& rejects);

// The plan's truncate alone (which it then no longer applies); its rows stay.
void reject_truncate(table_plan& plan, const std::string& reason, dead_letter_kind kind,
                     std::vector<dead_letter>& rejects);

}  // namespace sluice
