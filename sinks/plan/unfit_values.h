#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/model/value.h"
#include "sinks/dead_letters.h"
#include "sinks/plan/change_dead_letter.h"
#include "sinks/plan/table_plan.h"

namespace sluice {

// The walk every target's value_fit runs (postgres/plan/value_fit.h, mariadb/plan/value_fit.h):
// over a plan's items once the batch's shapes are current, it marks an item rejected when one of
// its values — key or column — cannot be held by its target column, and appends the item's dead
// letter (kind rejected) "schema.table: <why>". What "cannot hold" means is the target's:
//   rule_for(const column_def&, const planned_column* or nullptr for a key) -> Rule
//   checks(const Rule&) -> bool              whether the rule looks at values at all (a
//                                            Rule{} — a column the shape lacks — must not)
//   misfit(const Rule&, const std::string& column, const value&) -> std::optional<std::string>
// A template, not virtual calls: it runs for every value of every batch, and each target's
// Rule and column_def are its own types.
template <typename Shape, typename RuleFor, typename Checks, typename Misfit>
void reject_unfit_items(table_plan& plan, const Shape& shape, RuleFor rule_for, Checks checks,
                        Misfit misfit, std::vector<dead_letter>& rejects) {
  if (!shape.exists) return;
  using rule = decltype(rule_for(shape.columns.front(), nullptr));
  std::vector<rule> rules(plan.columns.size());
  bool any = false;
  for (size_t c = 0; c < plan.columns.size(); ++c) {
    if (const auto* col = shape.find(plan.columns[c].name)) {
      rules[c] = rule_for(*col, &plan.columns[c]);
      any = any || checks(rules[c]);
    }
  }
  std::vector<rule> key_rules(plan.key_columns.size());
  for (size_t k = 0; k < plan.key_columns.size(); ++k) {
    if (const auto* col = shape.find(plan.key_columns[k])) {
      key_rules[k] = rule_for(*col, nullptr);
      any = any || checks(key_rules[k]);
    }
  }
  if (!any) return;
  // The reason for column slot `slot`'s value, nullopt when it fits (or is not written).
  const auto column_misfit = [&](size_t i, size_t k, const value& v) -> std::optional<std::string> {
    const int32_t slot = plan.slots[plan.slot_begin[i] + k];
    if (slot < 0) return std::nullopt;
    return misfit(rules[size_t(slot)], plan.columns[size_t(slot)].name, v);
  };
  const std::string label = plan.target.schema + "." + plan.target.name + ": ";
  for (size_t i = 0; i < plan.item_count(); ++i) {
    if (plan.rejected[i]) continue;
    std::optional<std::string> why;
    if (plan.keyless) {
      const change& c = plan.keyless_change(i);
      for (size_t k = 0; k < c.after.size() && !why; ++k)
        why = column_misfit(i, k, c.after[k].v);
      if (why) {
        plan.rejected[i] = 1;
        rejects.push_back(keyless_dead_letter(*plan.rows, c, label + *why,
                                              dead_letter_kind::rejected, &plan.target));
      }
      continue;
    }
    const merged_row& row = plan.row(i);
    for (size_t k = 0; k < row.key.values.size() && k < key_rules.size() && !why; ++k)
      why = misfit(key_rules[k], plan.key_columns[k], row.key.values[k]);
    if (row.exists()) {
      for (size_t k = 0; k < row.columns.size() && !why; ++k)
        why = column_misfit(i, k, row.columns[k].v);
    }
    if (why) {
      plan.rejected[i] = 1;
      rejects.push_back(merged_row_dead_letter(*plan.rows, row, label + *why,
                                               dead_letter_kind::rejected, &plan.target));
    }
  }
}

}  // namespace sluice
