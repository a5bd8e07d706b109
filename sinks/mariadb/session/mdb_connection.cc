#include "sinks/mariadb/session/mdb_connection.h"

#include <mysql.h>

#include <algorithm>
#include <cstring>

#include "sinks/mariadb/session/multi_row_insert.h"
#include "sinks/mariadb/sql/sql_dialect.h"

namespace sluice::mdb {

namespace {

unsigned seconds_of(std::chrono::milliseconds ms) {
  if (ms.count() <= 0) return 0;
  return static_cast<unsigned>(std::max<int64_t>(1, (ms.count() + 999) / 1000));
}

// A cached statement's cache: a bounded number, so that per-table statements of a long run
// over many tables do not pile up on the server (max_prepared_stmt_count).
constexpr size_t max_cached_statements = 256;

void set_param(MYSQL_BIND& b, const param& p, unsigned long& length) {
  std::memset(&b, 0, sizeof b);
  if (p.type == param::kind::null) {
    b.buffer_type = MYSQL_TYPE_NULL;
    return;
  }
  b.buffer_type = p.type == param::kind::bytes ? MYSQL_TYPE_BLOB : MYSQL_TYPE_STRING;
  b.buffer = const_cast<char*>(p.data.data());
  length = p.data.size();
  b.buffer_length = length;
  b.length = &length;
}

}  // namespace

bool connection_lost(unsigned code) {
  return code == 2006 || code == 2013 || code == 2055 || code == 1927 || code == 4031 ||
         code == 2002 || code == 2003;
}

connection::connection(const connect_settings& s) {
  _mysql = mysql_init(nullptr);
  if (_mysql == nullptr) throw mdb_error(2008, "HY000", "MariaDB client out of memory");
  const dsn& d = s.target;
  const unsigned connect =
      seconds_of(d.connect_timeout.count() > 0 ? std::chrono::milliseconds(d.connect_timeout)
                                               : s.connect_timeout);
  if (connect > 0) mysql_optionsv(_mysql, MYSQL_OPT_CONNECT_TIMEOUT, &connect);
  const unsigned io = seconds_of(s.io_timeout);
  if (io > 0) {
    mysql_optionsv(_mysql, MYSQL_OPT_READ_TIMEOUT, &io);
    mysql_optionsv(_mysql, MYSQL_OPT_WRITE_TIMEOUT, &io);
  }
  mysql_optionsv(_mysql, MYSQL_SET_CHARSET_NAME, "utf8mb4");
  const unsigned infile = s.local_infile ? 1 : 0;
  mysql_optionsv(_mysql, MYSQL_OPT_LOCAL_INFILE, &infile);
  mysql_optionsv(_mysql, MYSQL_OPT_CONNECT_ATTR_ADD, "program_name", s.program.c_str());
  if (d.tls != tls_mode::disabled && d.tls != tls_mode::preferred) {
    const my_bool on = 1;
    mysql_optionsv(_mysql, MYSQL_OPT_SSL_ENFORCE, &on);
    if (d.tls == tls_mode::verify_ca || d.tls == tls_mode::verify_identity)
      mysql_optionsv(_mysql, MYSQL_OPT_SSL_VERIFY_SERVER_CERT, &on);
  }
  if (d.tls != tls_mode::disabled) {
    if (!d.ssl_ca.empty()) mysql_optionsv(_mysql, MYSQL_OPT_SSL_CA, d.ssl_ca.c_str());
    if (!d.ssl_cert.empty()) mysql_optionsv(_mysql, MYSQL_OPT_SSL_CERT, d.ssl_cert.c_str());
    if (!d.ssl_key.empty()) mysql_optionsv(_mysql, MYSQL_OPT_SSL_KEY, d.ssl_key.c_str());
  }
  if (mysql_real_connect(_mysql, d.host.c_str(), d.user.c_str(), d.password.c_str(),
                         d.database.empty() ? nullptr : d.database.c_str(), d.port, nullptr,
                         CLIENT_FOUND_ROWS) == nullptr) {
    const unsigned code = mysql_errno(_mysql);
    std::string state = mysql_sqlstate(_mysql);
    std::string message = mysql_error(_mysql);
    mysql_close(_mysql);
    _mysql = nullptr;
    throw mdb_error(code, std::move(state), message);
  }
  const bool mysql = sql_dialect::of_server(server_version()).mysql;
  unsigned long extended = 0;
  mariadb_get_infov(_mysql, MARIADB_CONNECTION_EXTENDED_SERVER_CAPABILITIES, &extended);
  const bool bulk = !mysql && (extended & (MARIADB_CLIENT_STMT_BULK_OPERATIONS >> 32)) != 0;
  _multi_row_bulk = s.multi_row_bulk || !bulk;
  for (const std::string& sql : mysql ? s.init_mysql : s.init)
    exec(sql);
}

connection::~connection() {
  for (auto& [sql, stmt] : _statements)
    mysql_stmt_close(stmt);
  if (_mysql != nullptr) mysql_close(_mysql);
}

// A call failed but Connector/C holds no error for it (seen after a server restart): what
// state the link is in is unknown, so it is treated as lost — dropped and opened again, the
// work retried — never as a final error with an empty message.
[[noreturn]] void connection::fail_without_error(const char* call) {
  _broken = true;
  throw mdb_error(2013, "HY000",
                  std::string("MariaDB client: ") + call +
                      " failed without an error; the connection is dropped");
}

void connection::fail(const char* call) {
  const unsigned code = mysql_errno(_mysql);
  if (code == 0) fail_without_error(call);
  if (connection_lost(code)) _broken = true;
  throw mdb_error(code, mysql_sqlstate(_mysql), mysql_error(_mysql));
}

void connection::fail(st_mysql_stmt* stmt, const char* call) {
  const unsigned code = mysql_stmt_errno(stmt);
  if (code == 0) {
    if (mysql_errno(_mysql) != 0) fail(call);
    fail_without_error(call);
  }
  mdb_error e(code, mysql_stmt_sqlstate(stmt), mysql_stmt_error(stmt));
  if (connection_lost(code)) _broken = true;
  throw e;
}

void connection::forget(std::string_view sql) {
  if (auto it = _statements.find(std::string(sql)); it != _statements.end()) {
    mysql_stmt_close(it->second);
    _statements.erase(it);
  }
}

st_mysql_stmt* connection::prepared(std::string_view sql) {
  std::string key(sql);
  if (auto it = _statements.find(key); it != _statements.end()) return it->second;
  if (_statements.size() >= max_cached_statements) {
    for (auto& [text, stmt] : _statements)
      mysql_stmt_close(stmt);
    _statements.clear();
  }
  MYSQL_STMT* stmt = mysql_stmt_init(_mysql);
  if (stmt == nullptr) fail("mysql_stmt_init");
  if (mysql_stmt_prepare(stmt, sql.data(), sql.size()) != 0) {
    const unsigned code = mysql_stmt_errno(stmt);
    mdb_error e(code, mysql_stmt_sqlstate(stmt), mysql_stmt_error(stmt));
    mysql_stmt_close(stmt);
    if (connection_lost(code)) _broken = true;
    throw e;
  }
  _statements.emplace(std::move(key), stmt);
  return stmt;
}

uint64_t connection::exec(std::string_view sql) {
  if (mysql_real_query(_mysql, sql.data(), sql.size()) != 0) fail("mysql_real_query");
  uint64_t affected = 0;
  do {
    MYSQL_RES* res = mysql_store_result(_mysql);
    if (res != nullptr) {
      mysql_free_result(res);
    } else if (mysql_field_count(_mysql) != 0) {
      fail("mysql_store_result");
    } else {
      affected += mysql_affected_rows(_mysql);
    }
  } while (mysql_next_result(_mysql) == 0);
  if (mysql_errno(_mysql) != 0) fail("mysql_next_result");
  return affected;
}

result connection::query(std::string_view sql) {
  if (mysql_real_query(_mysql, sql.data(), sql.size()) != 0) fail("mysql_real_query");
  MYSQL_RES* res = mysql_store_result(_mysql);
  result out;
  if (res == nullptr) {
    if (mysql_field_count(_mysql) != 0) fail("mysql_store_result");
    return out;
  }
  const unsigned n = mysql_num_fields(res);
  MYSQL_FIELD* fields = mysql_fetch_fields(res);
  for (unsigned i = 0; i < n; ++i)
    out.columns.emplace_back(fields[i].name);
  while (MYSQL_ROW row = mysql_fetch_row(res)) {  // stored: fetching cannot fail
    const unsigned long* lengths = mysql_fetch_lengths(res);
    auto& r = out.rows.emplace_back();
    r.reserve(n);
    for (unsigned i = 0; i < n; ++i) {
      if (row[i] == nullptr)
        r.emplace_back(std::nullopt);
      else
        r.emplace_back(std::string(row[i], lengths[i]));
    }
  }
  mysql_free_result(res);
  while (mysql_next_result(_mysql) == 0) {
    if (MYSQL_RES* more = mysql_store_result(_mysql)) mysql_free_result(more);
  }
  return out;
}

uint64_t connection::exec(std::string_view sql, std::span<const param> params) {
  if (params.empty()) return exec(sql);
  MYSQL_STMT* stmt = prepared(sql);
  std::vector<MYSQL_BIND> binds(params.size());
  std::vector<unsigned long> lengths(params.size());
  for (size_t i = 0; i < params.size(); ++i)
    set_param(binds[i], params[i], lengths[i]);
  const unsigned rows = 0;
  mysql_stmt_attr_set(stmt, STMT_ATTR_ARRAY_SIZE, &rows);
  if (mysql_stmt_bind_param(stmt, binds.data()) != 0 || mysql_stmt_execute(stmt) != 0) {
    std::string key(sql);
    try {
      fail(stmt, "mysql_stmt_execute");
    } catch (...) {
      forget(key);
      throw;
    }
  }
  const uint64_t affected = mysql_stmt_affected_rows(stmt);
  mysql_stmt_free_result(stmt);
  return affected;
}

result connection::query(std::string_view sql, std::span<const param> params) {
  if (params.empty()) return query(sql);
  MYSQL_STMT* stmt = prepared(sql);
  std::vector<MYSQL_BIND> binds(params.size());
  std::vector<unsigned long> lengths(params.size());
  for (size_t i = 0; i < params.size(); ++i)
    set_param(binds[i], params[i], lengths[i]);
  const unsigned rows = 0;
  mysql_stmt_attr_set(stmt, STMT_ATTR_ARRAY_SIZE, &rows);
  const std::string key(sql);
  auto failed = [&](const char* call) {
    try {
      fail(stmt, call);
    } catch (...) {
      forget(key);
      throw;
    }
  };
  if (mysql_stmt_bind_param(stmt, binds.data()) != 0 || mysql_stmt_execute(stmt) != 0)
    failed("mysql_stmt_execute");
  result out;
  MYSQL_RES* meta = mysql_stmt_result_metadata(stmt);
  if (meta == nullptr) {
    // No result set: a statement that returns none, or a failure (which must not read as
    // "no rows").
    if (mysql_stmt_errno(stmt) != 0 || mysql_errno(_mysql) != 0)
      failed("mysql_stmt_result_metadata");
    return out;
  }
  const unsigned n = mysql_num_fields(meta);
  MYSQL_FIELD* fields = mysql_fetch_fields(meta);
  for (unsigned i = 0; i < n; ++i)
    out.columns.emplace_back(fields[i].name);
  mysql_free_result(meta);
  std::vector<MYSQL_BIND> cols(n);
  std::vector<unsigned long> col_lengths(n);
  std::vector<my_bool> nulls(n), errors(n);
  for (unsigned i = 0; i < n; ++i) {
    std::memset(&cols[i], 0, sizeof cols[i]);
    cols[i].buffer_type = MYSQL_TYPE_STRING;
    cols[i].length = &col_lengths[i];
    cols[i].is_null = &nulls[i];
    cols[i].error = &errors[i];
  }
  if (mysql_stmt_bind_result(stmt, cols.data()) != 0) failed("mysql_stmt_bind_result");
  for (;;) {
    const int rc = mysql_stmt_fetch(stmt);
    if (rc == MYSQL_NO_DATA) break;
    if (rc == 1) failed("mysql_stmt_fetch");
    auto& r = out.rows.emplace_back();
    r.reserve(n);
    for (unsigned i = 0; i < n; ++i) {
      if (nulls[i]) {
        r.emplace_back(std::nullopt);
        continue;
      }
      std::string value(col_lengths[i], '\0');
      if (!value.empty()) {
        MYSQL_BIND one;
        std::memset(&one, 0, sizeof one);
        unsigned long got = 0;
        one.buffer_type = MYSQL_TYPE_STRING;
        one.buffer = value.data();
        one.buffer_length = value.size();
        one.length = &got;
        if (mysql_stmt_fetch_column(stmt, &one, i, 0) != 0) failed("mysql_stmt_fetch_column");
      }
      r.emplace_back(std::move(value));
    }
  }
  mysql_stmt_free_result(stmt);
  return out;
}

uint64_t connection::exec_multi_row(std::string_view sql, size_t width,
                                    std::span<const param> cells) {
  const size_t rows = cells.size() / width;
  uint64_t affected = 0;
  const std::optional<values_row> split = split_values_row(sql);
  if (!split) {
    for (size_t r = 0; r < rows; ++r)
      affected += exec(sql, cells.subspan(r * width, width));
    return affected;
  }
  if (_max_allowed_packet == 0) {
    _max_allowed_packet = std::stoull(query("SELECT @@max_allowed_packet").at(0, 0).value_or("0"));
  }
  for (size_t r = 0; r < rows;) {
    const size_t n = rows_in_chunk(width, cells, r, _max_allowed_packet);
    affected += exec(multi_row_sql(*split, n), cells.subspan(r * width, n * width));
    r += n;
  }
  return affected;
}

uint64_t connection::exec_bulk(std::string_view sql, size_t width, std::span<const param> cells) {
  if (width == 0 || cells.empty()) return 0;
  if (_multi_row_bulk) return exec_multi_row(sql, width, cells);
  const size_t rows = cells.size() / width;
  MYSQL_STMT* stmt = prepared(sql);
  std::vector<MYSQL_BIND> binds(width);
  std::vector<std::vector<const char*>> buffers(width, std::vector<const char*>(rows));
  std::vector<std::vector<unsigned long>> lengths(width, std::vector<unsigned long>(rows));
  std::vector<std::vector<char>> indicators(width, std::vector<char>(rows));
  for (size_t c = 0; c < width; ++c) {
    enum_field_types type = MYSQL_TYPE_STRING;
    for (size_t r = 0; r < rows; ++r) {
      const param& p = cells[r * width + c];
      if (p.type == param::kind::bytes) type = MYSQL_TYPE_BLOB;
      buffers[c][r] = p.data.data();
      lengths[c][r] = p.data.size();
      indicators[c][r] = p.type == param::kind::null ? STMT_INDICATOR_NULL : STMT_INDICATOR_NONE;
    }
    std::memset(&binds[c], 0, sizeof binds[c]);
    binds[c].buffer_type = type;
    binds[c].buffer = buffers[c].data();
    binds[c].length = lengths[c].data();
    binds[c].u.indicator = indicators[c].data();
  }
  const unsigned n = static_cast<unsigned>(rows);
  const std::string key(sql);
  if (mysql_stmt_attr_set(stmt, STMT_ATTR_ARRAY_SIZE, &n) != 0 ||
      mysql_stmt_bind_param(stmt, binds.data()) != 0 || mysql_stmt_execute(stmt) != 0) {
    try {
      fail(stmt, "mysql_stmt_execute (bulk)");
    } catch (...) {
      forget(key);
      throw;
    }
  }
  const uint64_t affected = mysql_stmt_affected_rows(stmt);
  mysql_stmt_free_result(stmt);
  return affected;
}

unsigned long connection::server_version() const {
  return mysql_get_server_version(_mysql);
}

std::string connection::warnings() {
  if (mysql_warning_count(_mysql) == 0) return {};
  const result r = query("SHOW WARNINGS");
  std::string out;
  for (const auto& row : r.rows) {
    if (!out.empty()) out += '\n';
    out += row.at(0).value_or("") + " " + row.at(1).value_or("") + ": " + row.at(2).value_or("");
  }
  return out;
}

}  // namespace sluice::mdb
