#pragma once

#include <string>
#include <vector>

#include "core/model/decoded.h"
#include "sinks/mariadb/session/mdb_connection.h"
#include "sinks/mariadb/session/state_schema.h"
#include "sinks/mariadb/sql/sql_dialect.h"
#include "sinks/plan/catalog_json.h"

namespace sluice::mdb {

// <state db>.catalog and <state db>.ddl_history on MariaDB (SPEC §3/§4), the contract of
// postgres/state/catalog_writer.h: what metadata records taught about source tables, and the
// DDL statements the source reported.
//
//   write(updates)  one array-bound upsert of the newest update per table (newest_per_table):
//                   a stored row with a higher CSN is kept; an identical one is not rewritten
//                   (updated_at stays). ON DUPLICATE KEY UPDATE has no WHERE: each assignment
//                   is guarded, csn assigned last (assignments run left to right and the
//                   guard reads the stored csn).
//   record(ddl)     appended to ddl_history by one array-bound INSERT (an array-bound
//                   statement cannot be an INSERT … SELECT), except a statement already
//                   recorded for the same table at the same CSN (one SELECT first).
//   load()          the stored catalog of the connector (key and column lists unnested by the
//                   server's JSON_TABLE).
//
// Inside the caller's transaction. Threading: none of its own.
class catalog_writer {
 public:
  // The upsert's text follows `dialect` (state_sql.h: MySQL 8's row alias).
  catalog_writer(const state_schema& schema, std::string connector,
                 sql_dialect dialect = sql_dialect::mariadb());

  // Returns the number of tables sent (newest per table): under CLIENT_FOUND_ROWS the server's
  // count cannot tell an unchanged row from a changed one.
  size_t write(connection& conn, const std::vector<catalog_update>& updates) const;
  // Returns the number of DDL rows added.
  size_t record(connection& conn, const std::vector<ddl_record>& ddl) const;
  // Every stored entry of the connector, in table-name order; `origin` is not stored (empty).
  std::vector<catalog_update> load(connection& conn) const;

 private:
  std::string _catalog;
  std::string _ddl_history;
  std::string _connector;
  sql_dialect _dialect;
};

}  // namespace sluice::mdb
