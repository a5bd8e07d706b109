#include "sinks/postgres/state/pg_schema_store.h"

#include <pqxx/connection>
#include <pqxx/nontransaction>
#include <pqxx/transaction>

#include "sinks/postgres/session/session_options.h"
#include "sinks/postgres/session/state_schema.h"

namespace sluice {

pg_schema_store::pg_schema_store(const session_options& options)
    : _table(state_schema(options.state_schema).table("registry_schemas")) {
  const session_conninfo info = make_session_conninfo(options, "registry");
  _conninfo = info.conninfo;
  _limits_sql = info.limits_sql;
}

pg_schema_store::~pg_schema_store() = default;

pqxx::connection& pg_schema_store::connection() {
  if (!_conn || !_conn->is_open()) {
    _conn = std::make_unique<pqxx::connection>(_conninfo);
    if (!_limits_sql.empty()) pqxx::nontransaction(*_conn).exec(_limits_sql);
  }
  return *_conn;
}

// Runs f on the connection; a failure drops it, so that the next call connects afresh.
template <typename F>
auto pg_schema_store::with_connection(F&& f) {
  try {
    return f(connection());
  } catch (...) {
    _conn.reset();
    throw;
  }
}

std::optional<sink::stored_schema> pg_schema_store::load(const std::string& registry_url,
                                                         int32_t id) {
  return with_connection([&](pqxx::connection& c) -> std::optional<sink::stored_schema> {
    pqxx::read_transaction tx(c);
    const pqxx::result r = tx.exec_params(
        "SELECT schema_type, schema FROM " + _table + " WHERE registry_url = $1 AND id = $2",
        registry_url, id);
    tx.commit();
    if (r.empty()) return std::nullopt;
    return sink::stored_schema{r[0][0].as<std::string>(), r[0][1].as<std::string>()};
  });
}

void pg_schema_store::save(const std::string& registry_url, int32_t id,
                           const sink::stored_schema& schema) {
  with_connection([&](pqxx::connection& c) {
    pqxx::work tx(c);
    tx.exec_params("INSERT INTO " + _table +
                       " (registry_url, id, schema_type, schema) VALUES ($1, $2, $3, $4) "
                       "ON CONFLICT (registry_url, id) DO NOTHING",
                   registry_url, id, schema.type, schema.text);
    tx.commit();
  });
}

}  // namespace sluice
