#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/catalog/table_catalog.h"
#include "core/catalog/table_router.h"
#include "sinks/postgres/apply_options.h"

namespace sluice {

class pg_applier;

// Answers table_catalog's key resolver from the target database (SPEC §1: "the connector asks
// the sink and feeds the answer into the catalog"): a source table is routed to its target
// and the target's primary key columns are read. Target column names are returned as they
// are: they match source columns whose names survive the case policy unchanged (DSQL's
// unquoted names are lower case). A table without a primary key (or not there yet) is asked
// again after `retry_after`, so a table created meanwhile is found without a lookup per
// message.
//
// Lifecycle: its own PostgreSQL connection, opened at the first lookup. Threading: one
// thread (the decode stage).
class target_key_lookup {
 public:
  target_key_lookup(std::string dsn, apply_options options,
                    std::chrono::milliseconds retry_after = std::chrono::seconds(5));
  ~target_key_lookup();

  std::vector<std::string> operator()(const table_name& source, std::string_view topic);

 private:
  struct answer {
    std::vector<std::string> key;
    std::chrono::steady_clock::time_point asked;
  };
  std::string _dsn;
  apply_options _options;
  table_router _router;
  std::chrono::milliseconds _retry_after;
  std::map<target_table, answer> _answers;
  std::unique_ptr<pg_applier> _applier;
};

}  // namespace sluice
