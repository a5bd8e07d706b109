#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "sinks/mariadb/session/mdb_connection.h"
#include "sinks/mariadb/sql/write_sql.h"

namespace sluice::mdb {

// Stages the rows of one set-based statement in a session temporary table (sql/write_sql.h
// stage_def) in one round trip: MariaDB's array binding (connection::exec_bulk) runs the
// stage's INSERT for every row at once (SPEC §4 "Bulk path"; the model:
// postgres/write/copy_stager.h).
//
// Per statement: begin(width), then per row each field in the stage's column order and
// end_row(), then fill(conn, stage, dialect), which — in the caller's transaction — creates the
// stage if the session lacks it (CREATE TEMPORARY TABLE IF NOT EXISTS: no implicit commit) or
// empties it (DELETE: on MariaDB the stage is Aria (create_stage_sql), which a ROLLBACK does not
// touch, and a statement that failed half way may have left rows; emptying before every fill makes
// both harmless; MySQL 8, or a server that refuses Aria, gets its default engine, whose ROLLBACK
// may bring rows back, harmless alike), then sends the rows. A temporary table is not dropped by a
// ROLLBACK: the set of tables the session has is only forgotten with the session (session_lost()).
//
// Fields point into the batch (add) or into the stager's own buffer (add_copy), which lives
// until the next begin(). Threading: one per apply lane (connection), owned by its table_writer.
class stager {
 public:
  void begin(size_t width);
  void add(param p) { _cells.push_back({p, false, 0, 0}); }
  void add_null() { add(param::null()); }
  // Copies text (made in a scratch buffer) into the stager's buffer.
  void add_copy(std::string_view text, param::kind kind = param::kind::text);
  void end_row();
  size_t rows() const { return _rows; }

  void fill(connection& conn, const stage_def& stage, const sql_dialect& dialect);
  // Sends the rows to an INSERT of one placeholder per field (not a stage's: the fast path of
  // table_writer, rows straight into their table); the rows it affected.
  uint64_t send(connection& conn, const std::string& insert);
  void session_lost() { _known.clear(); }

 private:
  struct cell {
    param p;
    bool owned;  // the text is _buffer[at, at + size) (the buffer moves while it grows)
    size_t at;
    size_t size;
  };

  std::set<std::string> _known;  // stages this session has
  bool _default_engine = false;  // the server refused the stage's engine: its default one
  std::vector<cell> _cells;
  std::vector<param> _params;
  std::string _buffer;
  size_t _width = 0;
  size_t _rows = 0;
};

}  // namespace sluice::mdb
