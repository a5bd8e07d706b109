#include "sinks/postgres/state_reader.h"

#include <pqxx/transaction>

#include "sinks/postgres/state/catalog_writer.h"

namespace sluice {

state_reader::state_reader(pg_session& session, std::string connector)
    : _session(session), _connector(std::move(connector)) {}

std::optional<std::vector<catalog_update>> state_reader::load_catalog(const keep_going& go) {
  const catalog_writer catalog(_session.schema(), _connector);
  return _session.run_while(go, [&](pqxx::connection& conn) {
    pqxx::read_transaction tx(conn, "sluice_load_catalog");
    return catalog.load(tx);
  });
}

std::vector<stored_offset> state_reader::read_offsets() {
  return read_offsets(_connector);
}

std::vector<stored_offset> state_reader::read_offsets(const std::string& connector) {
  const offset_store store(_session.schema(), connector);
  return _session.run([&](pqxx::connection& conn) {
    pqxx::read_transaction tx(conn, "sluice_read_offsets");
    return store.read(tx);
  });
}

std::vector<table_progress> state_reader::read_table_progress() {
  const table_progress_store progress(_session.schema(), _connector);
  return _session.run([&](pqxx::connection& conn) {
    pqxx::read_transaction tx(conn, "sluice_read_table_progress");
    return progress.read(tx);
  });
}

std::optional<size_t> state_reader::pending_chunks(const pg_session::keep_going& go) {
  // chunk_store's timeout plays no part in counting.
  const chunk_store chunks(_session.schema(), _connector, std::chrono::milliseconds(0));
  return _session.run_while(go, [&](pqxx::connection& conn) {
    pqxx::read_transaction tx(conn, "sluice_pending_chunks");
    return chunks.count_pending(tx);
  });
}

}  // namespace sluice
