#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "connector/config/config.h"
#include "connector/prepare/transforms/field_selection.h"
#include "connector/prepare/transforms/transform_chain.h"
#include "core/catalog/table_catalog.h"
#include "core/catalog/table_router.h"
#include "sinks/target.h"

namespace sluice {

// Answers table_catalog's key resolver from the target database (SPEC §1: "the connector asks
// the sink and feeds the answer into the catalog"): a source table is routed to its target
// and the target's primary key columns are read. Target column names are returned as they
// are: they match source columns whose names survive the case policy unchanged (DSQL's
// unquoted names are lower case). A table without a primary key (or not there yet) is asked
// again after `retry_after`, so a table created meanwhile is found without a lookup per
// message.
//
// An unreachable PostgreSQL is waited out (the session's policy), never answered with "no
// key" (which would dead-letter the change).
//
// Lifecycle: its own target session, opened at the first lookup. Threading: one thread
// (the decode stage, or a lane's chunk decoder).
class target_key_lookup {
 public:
  // go: asked while an outage is waited out; false gives up the lookup unanswered (the
  // caller's work was abandoned) — nothing is remembered of it.
  // role: the session's (application_name, health reports), unique per lookup.
  target_key_lookup(const sink::target& target, retry_policy policy, routing_options routing,
                    session_observer* observer = nullptr, keep_going go = {},
                    std::string role = "key-lookup",
                    std::chrono::milliseconds retry_after = std::chrono::seconds(5));
  ~target_key_lookup();

  std::vector<std::string> operator()(const table_name& source, std::string_view topic);
  // Reads keys as the prepare stage shapes changes (SPEC §6a): routed by the topic as c's
  // RegexRouters rename it, as the applier will (the table whose key is read is the one the
  // changes go to), and answered in the source's column names, the renames of ReplaceField and
  // fields.* undone (the decoder finds the key in the source's image). Call before the first
  // lookup; c outlives the lookup.
  void prepare_as(const config& c);

 private:
  // The target's key columns in the source's names (prepare_as()).
  std::vector<std::string> source_names(std::vector<std::string> key, const table_name& source,
                                        std::string_view topic) const;

  struct answer {
    std::vector<std::string> key;
    std::chrono::steady_clock::time_point asked;
  };
  table_router _router;
  std::unique_ptr<transform_chain> _topics;  // null: topics as they came, columns as named
  std::unique_ptr<field_selection> _fields;
  std::chrono::milliseconds _retry_after;
  std::map<target_table, answer> _answers;
  keep_going _go;
  std::unique_ptr<sink::target_session> _session;
  std::unique_ptr<sink::target_key_reader> _reader;  // on _session
};

}  // namespace sluice
