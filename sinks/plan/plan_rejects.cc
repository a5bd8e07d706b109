#include "sinks/plan/plan_rejects.h"

#include "sinks/plan/change_dead_letter.h"
#include "sinks/plan/json_text.h"

namespace sluice {
namespace {

dead_letter truncate_dead_letter(const table_rows& tr, const std::string& reason,
                                 dead_letter_kind kind, const target_table* target) {
  dead_letter dl;
  dl.reason = reason;
  dl.kind = kind;
  if (target) {
    dl.target_schema = target->schema;
    dl.target_table = target->name;
  }
  std::string v = "{\"table\":";
  append_json_string(v, tr.table ? tr.table->name.qualified() : std::string());
  v += ",\"op\":\"truncate\",\"csn\":";
  append_json_string(v, tr.truncate_seq.hex());
  v.push_back('}');
  dl.value = std::move(v);
  return dl;
}

}  // namespace

void reject_rows(const table_rows& tr, const std::string& reason, dead_letter_kind kind,
                 const target_table* target, std::vector<dead_letter>& rejects) {
  for (const merged_row& row : tr.rows)
    rejects.push_back(merged_row_dead_letter(tr, row, reason, kind, target));
  for (const change& c : tr.keyless)
    rejects.push_back(keyless_dead_letter(tr, c, reason, kind, target));
  if (!tr.truncate_seq.empty()) rejects.push_back(truncate_dead_letter(tr, reason, kind, target));
}

void reject_plan(table_plan& plan, const std::string& reason, dead_letter_kind kind,
                 std::vector<dead_letter>& rejects) {
  const std::string why = plan.target.schema + "." + plan.target.name + ": " + reason;
  for (size_t i = 0; i < plan.item_count(); ++i) {
    if (plan.rejected[i]) continue;
    plan.rejected[i] = 1;
    rejects.push_back(
        plan.keyless
            ? keyless_dead_letter(*plan.rows, plan.keyless_change(i), why, kind, &plan.target)
            : merged_row_dead_letter(*plan.rows, plan.row(i), why, kind, &plan.target));
  }
  reject_truncate(plan, reason, kind, rejects);
}

void reject_truncate(table_plan& plan, const std::string& reason, dead_letter_kind kind,
                     std::vector<dead_letter>& rejects) {
  if (!plan.truncate) return;
  plan.truncate = false;
  rejects.push_back(truncate_dead_letter(
      *plan.rows, plan.target.schema + "." + plan.target.name + ": " + reason, kind, &plan.target));
}

}  // namespace sluice
