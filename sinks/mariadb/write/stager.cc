#include "sinks/mariadb/write/stager.h"

#include <stdexcept>

namespace sluice::mdb {

void stager::begin(size_t width) {
  _width = width;
  _rows = 0;
  _cells.clear();
  _buffer.clear();
}

void stager::add_copy(std::string_view text, param::kind kind) {
  _cells.push_back({param{{}, kind}, true, _buffer.size(), text.size()});
  _buffer.append(text);
}

void stager::end_row() {
  if (_cells.size() != (_rows + 1) * _width)
    throw std::logic_error("stager: a row of the wrong width");
  ++_rows;
}

void stager::fill(connection& conn, const stage_def& stage, const sql_dialect& dialect) {
  if (stage.columns.size() != _width) throw std::logic_error("stager: not the stage's width");
  if (_known.count(stage.table)) {
    conn.exec(clear_stage_sql(stage));
  } else {
    try {
      conn.exec(create_stage_sql(stage, dialect, _default_engine));
    } catch (const mdb_error& e) {
      // 1286: unknown engine (a server built without Aria); 1290: enforce_storage_engine under
      // NO_ENGINE_SUBSTITUTION (sluice's sql_mode); 1289: the feature disabled. The server's
      // own engine is correct too, only slower.
      if (_default_engine || (e.code() != 1286 && e.code() != 1289 && e.code() != 1290)) throw;
      _default_engine = true;
      conn.exec(create_stage_sql(stage, dialect, true));
    }
    // Another writer of this session may have left rows in it.
    conn.exec(clear_stage_sql(stage));
    _known.insert(stage.table);
  }
  if (_rows == 0) return;
  send(conn, fill_stage_sql(stage));
}

uint64_t stager::send(connection& conn, const std::string& insert) {
  if (_rows == 0) return 0;
  _params.clear();
  _params.reserve(_cells.size());
  for (const cell& c : _cells) {
    param p = c.p;
    if (c.owned) p.data = std::string_view(_buffer.data() + c.at, c.size);
    _params.push_back(p);
  }
  return conn.exec_bulk(insert, _width, _params);
}

}  // namespace sluice::mdb
