#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <pqxx/result>
#include <pqxx/transaction_base>

#include "sinks/postgres/session/state_schema.h"

namespace sluice {

// Which dead letters a `sluice dead-letters` command is about: every set member narrows.
struct dead_letter_filter {
  std::optional<std::string> table;   // the target, "schema.table" or a bare table name
  std::optional<std::string> kind;    // decode, routing, rejected, ddl_failed, keyless, chunk
  std::optional<std::string> reason;  // a piece of text the reason holds (case ignored)
  std::optional<std::string> topic;
  std::optional<std::string> since;  // created at or after (PostgreSQL timestamptz text)
  std::optional<std::string> until;  // created before
  std::vector<int64_t> ids;          // these letters only, when not empty
};

// One stored dead letter as the commands show and replay it.
struct stored_dead_letter {
  int64_t id = 0;
  std::string created_at;  // ISO 8601, UTC
  std::string kind;        // empty for letters from before kinds were recorded
  std::string target;      // "schema.table", empty when the letter names none
  std::string reason;
  std::optional<std::string> topic;
  int32_t partition = 0;
  int64_t offset = -1;
  int64_t timestamp_ms = 0;  // the Kafka timestamp, 0 when none
  std::optional<std::string> key;
  std::optional<std::string> value;
  std::string headers_json;  // "[]" when none
};

// <schema>.dead_letters read and pruned by filter (SPEC §4; written by dead_letter_writer in
// batch transactions). Values are always sent as parameters; a table filter matches
// target_schema.target_table or target_table alone.
//
// Lifecycle: per command, no state. Threading: none of its own.
class dead_letter_store {
 public:
  dead_letter_store(const state_schema& schema, std::string connector);

  // Oldest first, at most `limit`, ids after `after_id` (to page through).
  std::vector<stored_dead_letter> select(pqxx::transaction_base& tx, const dead_letter_filter& f,
                                         int64_t after_id, size_t limit) const;
  uint64_t count(pqxx::transaction_base& tx, const dead_letter_filter& f) const;
  // The newest id the filter matches, 0 when none.
  int64_t last_id(pqxx::transaction_base& tx, const dead_letter_filter& f) const;
  // Deletes the filtered letters; returns how many.
  uint64_t purge(pqxx::transaction_base& tx, const dead_letter_filter& f) const;
  // Deletes these letters (a replay, in the transaction that applied them).
  uint64_t remove(pqxx::transaction_base& tx, const std::vector<int64_t>& ids) const;

 private:
  // Runs sql (filter_clause's $1..$8, then `more` as $9...) with the filter's values.
  template <typename... More>
  pqxx::result filtered(pqxx::transaction_base& tx, const std::string& sql,
                        const dead_letter_filter& f, More... more) const {
    return tx.exec_params(sql, _connector, f.kind, f.table, f.reason, f.topic, f.since, f.until,
                          ids_param(f.ids), more...);
  }
  static std::optional<std::string> ids_param(const std::vector<int64_t>& ids);

  std::string _table;
  std::string _connector;
};

}  // namespace sluice
