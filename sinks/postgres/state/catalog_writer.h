#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <pqxx/transaction_base>

#include "core/model/decoded.h"
#include "sinks/plan/catalog_json.h"
#include "sinks/postgres/session/state_schema.h"

namespace sluice {

// <schema>.catalog and <schema>.ddl_history (SPEC §3/§4): what metadata records taught about
// source tables, persisted because after a restart the records that taught it lie behind the
// committed offsets; and the DDL statements the source reported.
//
//   write(updates)  one statement: the newest update per table (by CSN when both have one,
//                   else the later one) upserted per (connector, source_database,
//                   source_schema, source_table); a stored row with a higher CSN is kept, and
//                   an identical one is not rewritten.
//   record(ddl)     one statement: appended to ddl_history, except a statement already
//                   recorded for the same table at the same CSN (a redelivered record).
//   load()          the stored catalog of the connector, for teaching the table catalog at
//                   start-up.
//
// Set-based (unnest arrays), inside the caller's transaction. Threading: none of its own.
class catalog_writer {
 public:
  catalog_writer(const state_schema& schema, std::string connector);

  // Returns the number of catalog rows inserted or changed.
  size_t write(pqxx::transaction_base& tx, const std::vector<catalog_update>& updates) const;
  // Returns the number of DDL rows added.
  size_t record(pqxx::transaction_base& tx, const std::vector<ddl_record>& ddl) const;
  // Every stored entry of the connector, in table-name order; `origin` is not stored (empty).
  std::vector<catalog_update> load(pqxx::transaction_base& tx) const;

 private:
  std::string _catalog;
  std::string _ddl_history;
  std::string _connector;
};

}  // namespace sluice
