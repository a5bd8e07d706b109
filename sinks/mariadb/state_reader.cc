#include "sinks/mariadb/state_reader.h"

#include "sinks/mariadb/state/catalog_writer.h"
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
  // Chunked records are not applied to MariaDB yet (batch_applier.h): none ever wait.
  return _session.run_while(go, [&](connection& conn) {
    return static_cast<size_t>(std::stoull(
        conn.query("SELECT count(DISTINCT chunk_id) FROM " +
                       _session.schema().table("pending_fragments") + " WHERE connector = ?",
                   std::vector{param::text(_connector)})
            .at(0, 0)
            .value_or("0")));
  });
}

}  // namespace sluice::mdb
