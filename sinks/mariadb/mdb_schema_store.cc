#include "sinks/mariadb/mdb_schema_store.h"

#include "sinks/mariadb/session/session_options.h"
#include "sinks/mariadb/state/schema_store.h"

namespace sluice::mdb {

mdb_schema_store::mdb_schema_store(const session_options& options)
    : _settings(make_connect_settings(options, "registry")), _schema(options.state_schema) {}

mdb_schema_store::~mdb_schema_store() = default;

connection& mdb_schema_store::open() {
  if (!_conn || _conn->broken()) {
    auto conn = std::make_unique<connection>(_settings);
    _schema.migrate(*conn);
    _conn = std::move(conn);
  }
  return *_conn;
}

// Runs f on the connection; a failure drops it, so that the next call connects afresh.
template <typename F>
auto mdb_schema_store::with_connection(F&& f) {
  try {
    return f(open());
  } catch (...) {
    _conn.reset();
    throw;
  }
}

std::optional<sink::stored_schema> mdb_schema_store::load(const std::string& registry_url,
                                                          int32_t id) {
  return with_connection(
      [&](connection& c) { return mdb::schema_store(_schema).load(c, registry_url, id); });
}

void mdb_schema_store::save(const std::string& registry_url, int32_t id,
                            const sink::stored_schema& schema) {
  with_connection([&](connection& c) {
    mdb::schema_store(_schema).save(c, registry_url, id, schema);
    return 0;
  });
}

}  // namespace sluice::mdb
