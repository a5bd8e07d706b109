#include "sinks/mariadb/plan/table_ddl.h"

#include <algorithm>

#include "sinks/mariadb/plan/table_shape_reader.h"
#include "sinks/mariadb/sql/mdb_identifier.h"

namespace sluice::mdb {
namespace {

// A table's definition as the server holds it, without its AUTO_INCREMENT counter (which
// moves with every insert, not with the shape); "" when the table is gone (1146).
std::string definition_of(connection& conn, const target_table& t) {
  result r;
  try {
    r = conn.query("SHOW CREATE TABLE " + quote_table(t.schema, t.name));
  } catch (const mdb_error& e) {
    if (e.code() != 1146) throw;
    return "";
  }
  if (r.empty() || r.rows[0].size() < 2 || !r.at(0, 1)) return "";
  std::string text = *r.at(0, 1);
  static constexpr std::string_view counter = " AUTO_INCREMENT=";
  if (const size_t at = text.rfind(counter); at != std::string::npos) {
    size_t end = at + counter.size();
    while (end < text.size() && text[end] >= '0' && text[end] <= '9')
      ++end;
    text.erase(at, end - at);
  }
  return text;
}

}  // namespace

void table_ddl::refresh(connection& conn, const std::vector<table_plan>& plans) {
  std::vector<target_table> targets;
  for (const table_plan& p : plans) {
    if (_shapes.contains(p.target) &&
        std::find(targets.begin(), targets.end(), p.target) == targets.end()) {
      targets.push_back(p.target);
    }
  }
  if (targets.empty()) return;
  // information_schema is neither transactional nor locked: read while another lane's ALTER
  // runs, a table can come back without its key columns. Opening the tables first takes their
  // shared metadata locks for the rest of the transaction: a running ALTER finishes first, a
  // later one waits for our COMMIT, and the definitions and shapes read are the ones the writes
  // meet. A table dropped since it was cached (1146) is opened by none: the read finds it gone.
  // FOR UPDATE (no row: WHERE 0) takes the write lock level the batch's writes need at once:
  // a read lock upgraded by the first write would wait behind a queued ALTER that waits for
  // the read lock, a metadata-lock deadlock (1213) and the batch run again.
  std::string open = "SELECT 1 FROM ";
  for (size_t i = 0; i < targets.size(); ++i) {
    if (i > 0) open += ", ";
    open += quote_table(targets[i].schema, targets[i].name) + " AS t" + std::to_string(i);
  }
  open += " WHERE 0 FOR UPDATE";
  try {
    conn.query(open);
  } catch (const mdb_error& e) {
    if (e.code() != 1146) throw;
    for (const target_table& t : targets) {
      try {
        conn.query("SELECT 1 FROM " + quote_table(t.schema, t.name) + " WHERE 0 FOR UPDATE");
      } catch (const mdb_error& gone) {
        if (gone.code() != 1146) throw;
      }
    }
  }
  // Under those locks SHOW CREATE TABLE is the definition the writes meet: a shape read with
  // the same one is that definition's (one short statement; information_schema opens every
  // table's definition anew, 60 ms a batch).
  std::vector<target_table> stale;
  std::vector<std::string> definitions;
  for (const target_table& t : targets) {
    std::string now = definition_of(conn, t);
    const auto known = _definitions.find(t);
    if (!now.empty() && known != _definitions.end() && known->second == now) continue;
    stale.push_back(t);
    definitions.push_back(std::move(now));
  }
  if (stale.empty()) return;
  std::vector<table_shape> fresh = read_table_shapes(conn, stale, _dialect);
  for (size_t i = 0; i < stale.size(); ++i) {
    _shapes[stale[i]] = std::move(fresh[i]);
    if (definitions[i].empty()) {
      _definitions.erase(stale[i]);
    } else {
      _definitions[stale[i]] = std::move(definitions[i]);
    }
  }
}

}  // namespace sluice::mdb
