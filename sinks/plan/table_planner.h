#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/catalog/table_filter.h"
#include "core/catalog/table_router.h"
#include "core/merge/merged_batch.h"
#include "core/model/batch_records.h"
#include "sinks/apply_options.h"
#include "sinks/plan/table_plan.h"

namespace sluice {

// What the target allows, for the planner to check before any SQL: the longest identifier
// (PostgreSQL 63 bytes, MariaDB 64 characters), and which targets no message may reach (the
// server's catalogs, sluice's state). Each target gives its own (postgres/plan/pg_rules.h,
// mariadb/plan/mdb_rules.h).
struct target_rules {
  size_t max_identifier_bytes = 63;
  // Why no message may write to this target; nothing when it is an ordinary one.
  std::function<std::optional<std::string>(const target_table&)> reserved;
};

// Turns a merged batch into table plans: skips tables tables.include / tables.exclude leave
// out, routes each table — refusing targets the target's rules reserve (sluice's state, the
// server's catalogs) —, maps column names through the
// case policy and checks them, and refuses what cannot be written as bad input — a column
// name over the target's identifier limit, two source names folding to one target name (an error,
// not a merge), a name in the reserved _sluice_ prefix, text with a NUL byte, a key that differs
// from the table's, a keyless change under keyless: dead_letter, a partial image under soft deletes
// — each as a dead letter naming why. Nothing is dropped silently.
//
// Stage: apply (first step). Threading: one instance per apply lane. It remembers, per
// target table, which source name each target column came from, across batches.
class table_planner {
 public:
  // rules: the target's; by default 63-byte names and only sluice's state schema reserved.
  explicit table_planner(const apply_options& options, target_rules rules = {});

  // Plans every table of the batch; refused items are marked and their dead letters appended
  // to rejects. Plans point into batch.
  std::vector<table_plan> plan(const merged_batch& batch, std::vector<dead_letter>& rejects);

 private:
  void plan_keyed(table_plan& p, std::vector<dead_letter>& rejects);
  // The plan's shard column and its truncate's scope (ByLogicalTableRouter); a truncate
  // that could reach other shards' rows is refused.
  void plan_shard(table_plan& p, std::vector<dead_letter>& rejects);
  void plan_keyless(table_plan& p, std::vector<dead_letter>& rejects);
  // The index of the target column for a source name, creating it; or an error message.
  int32_t map_column(table_plan& p, const std::string& source, std::string& error);
  void group(table_plan& p, size_t item, std::vector<uint32_t>& scratch,
             std::map<std::vector<uint32_t>, uint32_t>& groups);

  const apply_options& _options;
  target_rules _rules;
  table_router _router;
  table_filter _filter;
  // Per target table: target column name -> the source name that first took it.
  std::map<target_table, std::map<std::string, std::string>> _sources;
};

}  // namespace sluice
