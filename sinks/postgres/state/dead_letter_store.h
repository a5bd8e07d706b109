#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <pqxx/result>
#include <pqxx/transaction_base>

#include "sinks/dead_letters.h"
#include "sinks/postgres/session/state_schema.h"

namespace sluice {

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
  // A replay's batch, in its transaction: the `replayed` letters that applied go; one that
  // failed again keeps its id, taking the new letter's reason, kind, target and bytes (the new
  // letter `written` by this batch for the same message goes instead). Letters of one message
  // pair up in id order; a new letter with no replayed one of its message stays as written.
  // Returns how many replayed letters went.
  uint64_t settle_replayed(pqxx::transaction_base& tx, const std::vector<int64_t>& replayed,
                           const std::vector<int64_t>& written) const;

 private:
  // Runs sql (filter_clause's $1..$9, then `more` as $10...) with the filter's values.
  template <typename... More>
  pqxx::result filtered(pqxx::transaction_base& tx, const std::string& sql,
                        const dead_letter_filter& f, More... more) const {
    return tx.exec_params(sql, _connector, f.kind, f.table, f.reason, f.topic, f.since, f.until,
                          ids_param(f.ids), f.up_to_id, more...);
  }
  static std::optional<std::string> ids_param(const std::vector<int64_t>& ids);

  std::string _table;
  std::string _connector;
};

}  // namespace sluice
