#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sinks/mariadb/session/mdb_dsn.h"

struct st_mysql;
struct st_mysql_stmt;

namespace sluice::mdb {

// An error the server or Connector/C reported: MariaDB's error number (1xxx from the server,
// 2xxx from the client library) and the SQLSTATE, with the message.
class mdb_error : public std::runtime_error {
 public:
  mdb_error(unsigned code, std::string sqlstate, const std::string& message)
      : std::runtime_error(message), _code(code), _sqlstate(std::move(sqlstate)) {}
  unsigned code() const { return _code; }
  const std::string& sqlstate() const { return _sqlstate; }

 private:
  unsigned _code;
  std::string _sqlstate;
};

// What one connection is opened with.
struct connect_settings {
  dsn target;
  std::string program = "sluice";  // the program_name connection attribute (processlist)
  std::chrono::milliseconds connect_timeout{10'000};
  // Client-side deadline on one read or write of the socket (the round-trip watchdog's
  // counterpart: Connector/C has one built in). 0: none.
  std::chrono::milliseconds io_timeout{0};
  // Run right after connecting, in order (SET SESSION …): `init` on MariaDB, `init_mysql` on
  // MySQL 8 (told apart by the server's version, sql_dialect::of_server; session_options.h).
  std::vector<std::string> init;
  std::vector<std::string> init_mysql;
  bool local_infile = false;
  // exec_bulk sends multi-row INSERTs (multi_row_insert.h) even where MariaDB's array binding
  // works: how that path, MySQL 8's, is run against MariaDB in the tests.
  bool multi_row_bulk = false;
};

// One value sent as data (a prepared statement's parameter): text the server converts to the
// column's type under the session's sql_mode, bytes sent without any character set, or NULL.
struct param {
  enum class kind : uint8_t { text, bytes, null };
  std::string_view data;
  kind type = kind::text;

  static param text(std::string_view s) { return {s, kind::text}; }
  static param bytes(std::string_view s) { return {s, kind::bytes}; }
  static param null() { return {{}, kind::null}; }
};

// A result set, every value as text (NULL: nullopt).
struct result {
  std::vector<std::string> columns;
  std::vector<std::vector<std::optional<std::string>>> rows;

  bool empty() const { return rows.empty(); }
  size_t size() const { return rows.size(); }
  const std::optional<std::string>& at(size_t row, size_t column) const {
    return rows.at(row).at(column);
  }
};

// One connection to MariaDB through Connector/C (the model: postgres/session/pg_session.h's
// libpqxx connection), opened with CLIENT_FOUND_ROWS so that an UPDATE reports the rows it
// matched, not only those it changed (an offsets rewrite to the same value is not a fenced
// writer). Values are always sent as data, through prepared statements (cached by their text);
// a statement without parameters goes as text. One statement per call: multi-statements are
// off.
//
// Lifecycle: the constructor connects (throws mdb_error); the destructor closes.
// Threading: one thread at a time.
class connection {
 public:
  explicit connection(const connect_settings& settings);
  ~connection();
  connection(const connection&) = delete;
  connection& operator=(const connection&) = delete;

  // A statement; the rows it matched (found rows, CLIENT_FOUND_ROWS) or changed.
  uint64_t exec(std::string_view sql);
  uint64_t exec(std::string_view sql, std::span<const param> params);
  result query(std::string_view sql);
  result query(std::string_view sql, std::span<const param> params);
  // One prepared statement run for every row of `cells` (rows × width, row after row) in one
  // round trip (MariaDB's array binding, "bulk" execution); the rows it affected in all.
  // Where the server has no bulk execution (MySQL 8, or no MARIADB_CLIENT_STMT_BULK_OPERATIONS)
  // or connect_settings::multi_row_bulk says so: an INSERT goes as multi-row INSERTs in chunks
  // (multi_row_insert.h), any other statement once per row; inside the caller's transaction
  // that is as all-or-nothing as one execution.
  uint64_t exec_bulk(std::string_view sql, size_t width, std::span<const param> cells);
  // Whether exec_bulk takes the multi-row path.
  bool multi_row_bulk() const { return _multi_row_bulk; }

  // A server or client error left the connection unusable (lost, killed, timed out): drop it.
  bool broken() const { return _broken; }
  // Server version as MAJOR*10000 + MINOR*100 + PATCH.
  unsigned long server_version() const;
  // SHOW WARNINGS after the last statement, "level code: message" per line ("" when none).
  std::string warnings();

  st_mysql* handle() { return _mysql; }

 private:
  st_mysql_stmt* prepared(std::string_view sql);
  // Throws the error the call left (`call` names it when Connector/C left none).
  [[noreturn]] void fail(const char* call);
  [[noreturn]] void fail(st_mysql_stmt* stmt, const char* call);
  [[noreturn]] void fail_without_error(const char* call);
  void forget(std::string_view sql);
  uint64_t exec_multi_row(std::string_view sql, size_t width, std::span<const param> cells);

  st_mysql* _mysql = nullptr;
  bool _broken = false;
  bool _multi_row_bulk = false;
  size_t _max_allowed_packet = 0;  // read when the multi-row path first needs it
  std::unordered_map<std::string, st_mysql_stmt*> _statements;
};

// Whether an error number means the connection is gone (2006 server gone, 2013 lost during a
// query, 2055 lost with a system error, 1927 killed, 4031 disconnected for being idle in a
// transaction).
bool connection_lost(unsigned code);

}  // namespace sluice::mdb
