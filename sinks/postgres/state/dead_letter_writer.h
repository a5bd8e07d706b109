#pragma once

#include <string>
#include <vector>

#include <pqxx/transaction_base>

#include "core/model/batch_records.h"
#include "sinks/postgres/session/state_schema.h"

namespace sluice {

// <schema>.dead_letters (SPEC §4): one multi-row INSERT (unnest arrays) inside the batch
// transaction, so a dead letter is written exactly when the offsets move past it. Headers
// are stored as JSON (json_text.h); raw key and value bytes as bytea. Threading: none of its
// own.
class dead_letter_writer {
 public:
  dead_letter_writer(const state_schema& schema, std::string connector);

  // Returns the number of rows written; their ids, in `letters`' order, into `ids` if given.
  size_t write(pqxx::transaction_base& tx, const std::vector<const dead_letter*>& letters,
               std::vector<int64_t>* ids = nullptr) const;

 private:
  std::string _table;
  std::string _connector;
};

}  // namespace sluice
