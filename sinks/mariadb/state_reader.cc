#include "sinks/mariadb/state_reader.h"

#include "sinks/mariadb/state/catalog_writer.h"
#include "sinks/mariadb/state/chunk_store.h"
#include "sinks/mariadb/state/offset_store.h"
#include "sinks/mariadb/state/table_progress_store.h"

namespace sluice::mdb {

std::optional<std::vector<catalog_update>> state_reader::load_catalog(const keep_going& go) {
  const catalog_writer catalog(_session.schema(), _connector);
  return _session.run_while(go, [&](connection& conn) { return catalog.load(conn); });
}

std::vector<stored_offset> state_reader::read_offsets() {
  const offset_store store(_session.schema(), _connector);
  return _session.run([&](connection& conn) { return store.read(conn); });
}

std::vector<table_progress> state_reader::read_table_progress() {
  const table_progress_store progress(_session.schema(), _connector);
  return _session.run([&](connection& conn) { return progress.read(conn); });
}

std::optional<size_t> state_reader::pending_chunks(const keep_going& go) {
  const chunk_store chunks(_session.schema(), _connector, {});
  return _session.run_while(go, [&](connection& conn) { return chunks.count_pending(conn); });
}

}  // namespace sluice::mdb
