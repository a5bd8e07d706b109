#include "sinks/mariadb/target_key_reader.h"

#include "sinks/mariadb/plan/table_shape_reader.h"

namespace sluice::mdb {

std::optional<std::vector<std::string>> target_key_reader::primary_key(const target_table& table,
                                                                       const keep_going& go) {
  return _session.run_while(go, [&](connection& conn) {
    return read_table_shape(conn, table, sql_dialect::of_server(conn.server_version())).primary_key;
  });
}

}  // namespace sluice::mdb
