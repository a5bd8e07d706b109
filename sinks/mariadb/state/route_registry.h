#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/catalog/table_catalog.h"
#include "core/model/batch_records.h"
#include "sinks/mariadb/session/mdb_connection.h"
#include "sinks/mariadb/session/state_schema.h"
#include "sinks/plan/table_plan.h"

namespace sluice::mdb {

// <state db>.routes on MariaDB (the contract of postgres/state/route_registry.h): which source
// table feeds each target table (SPEC §4 "Table routing": two source tables whose names fold onto
// one target — Orders and ORDERS under identifier.case: lower — are an error, not a merge). The
// first lane or instance to route a source to a target claims it (INSERT … ON DUPLICATE KEY UPDATE
// that changes nothing, on the target's primary key, so concurrent claims serialize in the server;
// not INSERT IGNORE, which would turn a value a column refuses into a warning); any other source
// routed there later is refused, whichever lane or process sees it, across restarts — but for the
// shards of a logical table (ByLogicalTableRouter, table_plan::shard_column): a target claimed with
// a shard column admits every source whose rows carry that column in their key, since their rows
// cannot collide and their truncates remove their own rows only.
//
// Lifecycle: per applier, holds no connection; a claim, once read, never changes, so the
// cache makes the steady state free (no round trip). Threading: its applier's.
class route_registry {
 public:
  route_registry(const state_schema& schema, std::string connector);

  // Whether some plan's target is not cached yet (claim() must run before enforce()).
  bool needs_claims(const std::vector<table_plan>& plans) const;
  struct owner {
    table_name source;         // the source that claimed the target
    std::string shard_column;  // "": the target is that source's alone
  };
  using owners = std::map<target_table, owner>;
  // Claims the uncached targets for their plans' sources and reads back who holds them (two
  // statements, in the caller's transaction). What it read is learned only once that transaction
  // has committed: a claim that rolled back must not be believed.
  owners claim(connection& conn, const std::vector<table_plan>& plans) const;
  void learn(owners read);
  // Rejects (dead letters of kind routing) every plan whose target another source holds.
  void enforce(std::vector<table_plan>& plans, std::vector<dead_letter>& rejects) const;

 private:
  static bool live(const table_plan& plan);

  std::string _table;
  std::string _connector;
  owners _owners;
};

}  // namespace sluice::mdb
