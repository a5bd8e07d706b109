#include "sinks/postgres/target_key_reader.h"

#include <pqxx/transaction>

#include "sinks/postgres/plan/table_shape_reader.h"

namespace sluice {

std::optional<std::vector<std::string>> target_key_reader::primary_key(
    const target_table& table, const pg_session::keep_going& go) {
  return _session.run_while(go, [&](pqxx::connection& conn) {
    pqxx::read_transaction tx(conn, "sluice_read_key");
    return read_table_shape(tx, table).primary_key;
  });
}

}  // namespace sluice
