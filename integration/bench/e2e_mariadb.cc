#include "integration/bench/e2e_mariadb.h"

#include <mysql.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <stdexcept>

#include "integration/support/services.h"
#include "sinks/mariadb/session/mdb_connection.h"

namespace sluice::testing {
namespace {

std::string dsn() {
  std::ifstream in(run_dir() + "/mariadb.dsn");
  std::string out;
  std::getline(in, out);
  if (out.empty()) {
    throw std::runtime_error("no mariadb.dsn in " + run_dir() +
                             " (integration/services/mariadb.sh start)");
  }
  return out;
}

std::string quoted(const std::string& name) {
  return "`" + name + "`";
}

// LOAD DATA's infile handler reading one buffer (Connector/C calls it instead of opening the
// file the statement names).
struct infile {
  const std::string* data = nullptr;
  size_t at = 0;
};

int infile_init(void** ptr, const char*, void* userdata) {
  *ptr = userdata;
  return 0;
}

int infile_read(void* ptr, char* buf, unsigned int length) {
  auto* f = static_cast<infile*>(ptr);
  const size_t n = std::min<size_t>(length, f->data->size() - f->at);
  std::memcpy(buf, f->data->data() + f->at, n);
  f->at += n;
  return static_cast<int>(n);
}

void infile_end(void*) {}

int infile_error(void*, char* buf, unsigned int length) {
  std::snprintf(buf, length, "e2e_bench: infile handler failed");
  return 2000;
}

enum class conversion { none, boolean, timestamp, bytes };

conversion conversion_of(const std::string& type) {
  if (type.starts_with("tinyint") || type.starts_with("bool") || type.starts_with("bit")) {
    return conversion::boolean;
  }
  if (type.starts_with("datetime") || type.starts_with("timestamp")) return conversion::timestamp;
  if (type.find("binary") != std::string::npos || type.find("blob") != std::string::npos) {
    return conversion::bytes;
  }
  return conversion::none;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  throw std::runtime_error("not a hex digit in a bytea value");
}

// One COPY text field (no tabs or newlines; escapes as COPY writes them) as LOAD DATA's.
void append_field(std::string& out, std::string_view field, conversion c) {
  if (field == "\\N") {
    out += field;
    return;
  }
  switch (c) {
    case conversion::none:
      out += field;
      return;
    case conversion::boolean:
      out += field == "t" ? "1" : field == "f" ? "0" : std::string(field);
      return;
    case conversion::timestamp:
      for (char ch : field) {
        if (ch == 'Z') continue;
        out.push_back(ch == 'T' ? ' ' : ch);
      }
      return;
    case conversion::bytes:
      if (!field.starts_with("\\\\x")) throw std::runtime_error("a bytea field not in hex");
      for (size_t i = 3; i + 1 < field.size(); i += 2) {
        const char b = static_cast<char>(hex_digit(field[i]) * 16 + hex_digit(field[i + 1]));
        switch (b) {
          case '\\':
            out += "\\\\";
            break;
          case '\t':
            out += "\\t";
            break;
          case '\n':
            out += "\\n";
            break;
          case '\0':
            out += "\\0";
            break;
          default:
            out.push_back(b);
        }
      }
      return;
  }
}

}  // namespace

mariadb_bench::mariadb_bench() {
  mdb::connect_settings s;
  s.target = mdb::parse_dsn(dsn());
  s.program = "sluice:e2e-bench";
  s.init = {"SET SESSION time_zone = '+00:00'", "SET SESSION sql_mode = 'STRICT_ALL_TABLES'"};
  s.local_infile = true;
  _conn = std::make_unique<mdb::connection>(s);
}

mariadb_bench::~mariadb_bench() = default;

std::string mariadb_bench::config_section() {
  return "mariadb:\n  dsn: \"" + dsn() + "\"\n";
}

std::string mariadb_bench::table(const std::string& name) {
  return "`public`." + quoted(name);
}

int64_t mariadb_bench::committed(const std::string& connector) {
  try {
    const mdb::result r = _conn->query(
        "SELECT coalesce(sum(next_offset), 0) FROM sluice.offsets WHERE connector = '" + connector +
        "'");
    return std::stoll(r.at(0, 0).value_or("0"));
  } catch (const mdb::mdb_error& e) {
    if (e.code() == 1146 || e.code() == 1049) return 0;  // no table or database yet
    throw;
  }
}

int64_t mariadb_bench::count(const std::string& table_sql) {
  return std::stoll(_conn->query("SELECT count(*) FROM " + table_sql).at(0, 0).value_or("0"));
}

void mariadb_bench::exec(const std::string& sql) {
  _conn->exec(sql);
}

std::vector<double> mariadb_bench::numbers(const std::string& sql) {
  std::vector<double> out;
  for (const auto& row : _conn->query(sql).rows) {
    if (row.at(0)) out.push_back(std::stod(*row.at(0)));
  }
  return out;
}

std::vector<std::string> mariadb_bench::convert(const std::string& name,
                                                const std::vector<std::string>& columns,
                                                const std::vector<std::string>& copy_batches) {
  std::map<std::string, conversion> types;
  for (const auto& row : _conn
                             ->query("SELECT column_name, column_type FROM "
                                     "information_schema.columns WHERE table_schema = 'public' "
                                     "AND table_name = '" +
                                     name + "'")
                             .rows) {
    types[row.at(0).value_or("")] = conversion_of(row.at(1).value_or(""));
  }
  std::vector<conversion> per_field;
  for (const std::string& c : columns) {
    const auto it = types.find(c);
    if (it == types.end()) throw std::runtime_error("no column " + c + " in " + table(name));
    per_field.push_back(it->second);
  }
  std::vector<std::string> out;
  out.reserve(copy_batches.size());
  for (const std::string& lines : copy_batches) {
    std::string& o = out.emplace_back();
    o.reserve(lines.size());
    size_t at = 0;
    while (at < lines.size()) {
      const size_t eol = lines.find('\n', at);
      const std::string_view line(lines.data() + at, eol - at);
      size_t from = 0;
      for (size_t f = 0; f < per_field.size(); ++f) {
        const size_t tab = std::min(line.find('\t', from), line.size());
        if (f > 0) o.push_back('\t');
        append_field(o, line.substr(from, tab - from), per_field[f]);
        from = tab + 1;
      }
      o.push_back('\n');
      at = eol + 1;
    }
  }
  return out;
}

void mariadb_bench::load(const std::string& table_sql, const std::vector<std::string>& columns,
                         const std::string& lines) {
  std::string list;
  for (const std::string& c : columns)
    list += (list.empty() ? "" : ", ") + quoted(c);
  infile source{&lines, 0};
  mysql_set_local_infile_handler(_conn->handle(), infile_init, infile_read, infile_end,
                                 infile_error, &source);
  // The defaults, spelled out: tab-separated fields, \-escapes, \N for NULL, one row a line.
  _conn->exec("LOAD DATA LOCAL INFILE 'e2e_bench' INTO TABLE " + table_sql +
              " CHARACTER SET binary FIELDS TERMINATED BY '\\t' ESCAPED BY '\\\\' "
              "LINES TERMINATED BY '\\n' (" +
              list + ")");
  _warnings += mysql_warning_count(_conn->handle());
  mysql_set_local_infile_default(_conn->handle());
}

}  // namespace sluice::testing
