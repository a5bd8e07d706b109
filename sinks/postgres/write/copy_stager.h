#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <pqxx/transaction_base>

namespace sluice {

// Stages the rows of one set-based statement in a session temporary table by COPY (SPEC §4
// "Bulk path"), so that the statement reads them as its source instead of unnest()ing array
// parameters: the server parses COPY's text format at a fraction of the cost of array
// literals (integration/bench/apply_bench.cc measures both).
//
// Per statement: begin(types), then per row each field in column order and end_row(), then
// flush(tx, aliases), which — in the caller's transaction — creates the staging table for
// these column types if the session lacks it (CREATE TEMP TABLE IF NOT EXISTS … ON COMMIT
// DELETE ROWS), empties it if this transaction staged rows in it before, COPYs the rows in,
// and returns the FROM item that names it. One staging table per list of column types, kept
// for the life of the session; whatever a transaction staged is gone when it ends, committed
// or not.
//
// The stager remembers which tables the session has and which this transaction filled, so
// that a statement whose table exists and is empty costs the COPY alone, not a round trip of
// DDL before it. Its owner reports the transaction's life: transaction_begun() before the
// first flush, transaction_committed() after COMMIT, savepoint_rolled_back() after a ROLLBACK
// TO SAVEPOINT (from then on every flush creates and empties: what the savepoint undid is
// unknown), session_lost() when the connection goes (a new session has no temporary tables).
//
// Threading: one per apply lane (connection), owned by its table_writer. Keeps its buffer
// between statements.
class copy_stager {
 public:
  // Starts a statement's rows; types are scalar SQL types among bytea, text, jsonb, bigint,
  // int4.
  void begin(const std::vector<const char*>& types);
  void add_null();
  void add(std::string_view text);
  void add_bytea(std::string_view bytes);
  void add_int(int64_t v);
  void end_row();
  size_t rows() const { return _rows; }

  // Sends the rows to the staging table and returns "pg_temp.<table> AS s(<aliases>)".
  std::string flush(pqxx::transaction_base& tx, const std::vector<std::string>& aliases);
  // Sends the rows straight into `table` (quoted and qualified), one field per column of
  // `columns` (quoted names), without staging (begin()'s types only name nothing here).
  void copy_into(pqxx::transaction_base& tx, const std::string& table,
                 const std::vector<std::string>& columns);

  void transaction_begun();
  void transaction_committed();
  void savepoint_rolled_back();
  void session_lost();

 private:
  void separate();

  std::set<std::string> _known;    // tables whose creation the session committed
  std::set<std::string> _created;  // tables created (if not there) by this transaction
  std::set<std::string> _filled;   // tables this transaction staged rows in
  bool _unsure = false;            // a savepoint was rolled back in this transaction

  std::string _table;    // staging table name, from the column types ("sluice_stage_b2t6")
  std::string _columns;  // its column definitions
  std::string _data;     // COPY text rows
  size_t _rows = 0;
  size_t _fields = 0;  // fields in the current row
};

}  // namespace sluice
