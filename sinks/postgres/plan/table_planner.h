#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/catalog/table_filter.h"
#include "core/catalog/table_router.h"
#include "core/merge/merged_batch.h"
#include "core/model/batch_records.h"
#include "sinks/apply_options.h"
#include "sinks/postgres/plan/table_plan.h"

namespace sluice {

// Turns a merged batch into table plans: skips tables tables.include / tables.exclude leave
// out, routes each table — refusing targets in sluice's state schema or PostgreSQL's own
// (pg_*, information_schema) —, maps column names through the
// case policy and checks them, and refuses what cannot be written as bad input — a column
// name over 63 bytes, two source names folding to one target name (an error, not a merge),
// a name in the reserved _sluice_ prefix, text with a NUL byte, a key that differs from the
// table's, a keyless change under keyless: dead_letter, a partial image under soft deletes
// — each as a dead letter naming why. Nothing is dropped silently.
//
// Stage: apply (first step). Threading: one instance per apply lane. It remembers, per
// target table, which source name each target column came from, across batches.
class table_planner {
 public:
  explicit table_planner(const apply_options& options);

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
  table_router _router;
  table_filter _filter;
  // Per target table: target column name -> the source name that first took it.
  std::map<target_table, std::map<std::string, std::string>> _sources;
};

}  // namespace sluice
