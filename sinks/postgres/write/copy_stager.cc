#include "sinks/postgres/write/copy_stager.h"

#include <array>
#include <cstring>
#include <stdexcept>

// libpqxx 6.4 offers raw COPY lines only through tablewriter (deprecated in favour of
// stream_to, whose write_raw_line() is private and whose operator<< escapes every field
// through a temporary string): sluice escapes the COPY text itself, in one buffer.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#include <pqxx/tablewriter>
#pragma GCC diagnostic pop

namespace sluice {
namespace {

char type_code(const char* type) {
  if (!std::strcmp(type, "bytea")) return 'b';
  if (!std::strcmp(type, "text")) return 't';
  if (!std::strcmp(type, "jsonb")) return 'j';
  if (!std::strcmp(type, "bigint")) return 'l';
  if (!std::strcmp(type, "int4")) return 'i';
  throw std::logic_error(std::string("copy_stager: no staging for type ") + type);
}

}  // namespace

void copy_stager::begin(const std::vector<const char*>& types) {
  // The name spells the types run-length encoded: bytea, bytea, text x6 -> b2t6.
  _table = "sluice_stage_";
  _columns.clear();
  for (size_t i = 0; i < types.size();) {
    size_t run = 1;
    while (i + run < types.size() && !std::strcmp(types[i + run], types[i]))
      ++run;
    _table += type_code(types[i]) + std::to_string(run);
    i += run;
  }
  for (size_t i = 0; i < types.size(); ++i)
    _columns += (i ? ", c" : "c") + std::to_string(i) + " " + types[i];
  _data.clear();
  _rows = 0;
  _fields = 0;
}

void copy_stager::separate() {
  if (_fields++ > 0) _data.push_back('\t');
}

void copy_stager::add_null() {
  separate();
  _data += "\\N";
}

namespace {

// The bytes COPY's text format escapes: the backslash, the separators and line ends.
constexpr std::array<bool, 256> needs_escape = [] {
  std::array<bool, 256> t{};
  t['\\'] = t['\t'] = t['\n'] = t['\r'] = true;
  return t;
}();

}  // namespace

void copy_stager::add(std::string_view text) {
  separate();
  size_t plain = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (!needs_escape[static_cast<unsigned char>(c)]) continue;
    _data.append(text.data() + plain, i - plain);
    _data.push_back('\\');
    _data.push_back(c == '\t' ? 't' : c == '\n' ? 'n' : c == '\r' ? 'r' : '\\');
    plain = i + 1;
  }
  _data.append(text.data() + plain, text.size() - plain);
}

void copy_stager::add_bytea(std::string_view bytes) {
  separate();
  static constexpr char digits[] = "0123456789abcdef";
  // bytea's hex input \x…, its backslash escaped for COPY; written in place.
  const size_t at = _data.size();
  _data.resize(at + 3 + 2 * bytes.size());
  char* out = _data.data() + at;
  *out++ = '\\';
  *out++ = '\\';
  *out++ = 'x';
  for (char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    *out++ = digits[b >> 4];
    *out++ = digits[b & 0x0f];
  }
}

void copy_stager::add_int(int64_t v) {
  separate();
  _data += std::to_string(v);
}

void copy_stager::end_row() {
  _data.push_back('\n');
  ++_rows;
  _fields = 0;
}

std::string copy_stager::flush(pqxx::transaction_base& tx,
                               const std::vector<std::string>& aliases) {
  const std::string name = "pg_temp." + _table;
  // One round trip, when needed at all: the table for this session (kept), emptied of an
  // earlier statement's rows of this transaction.
  std::string prepare;
  if (_unsure || (!_known.count(_table) && !_created.count(_table))) {
    prepare =
        "CREATE TEMP TABLE IF NOT EXISTS " + _table + " (" + _columns + ") ON COMMIT DELETE ROWS; ";
    _created.insert(_table);
  }
  if (_unsure || _filled.count(_table)) prepare += "TRUNCATE " + name;
  if (!prepare.empty()) tx.exec(prepare);
  _filled.insert(_table);
  if (_rows > 0) {
    _data.pop_back();  // write_raw_line() ends the last line itself
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    pqxx::tablewriter copy(tx, name);
    copy.write_raw_line(_data);  // many lines at once: COPY reads a stream, not lines
    copy.complete();
#pragma GCC diagnostic pop
  }
  std::string out = name + " AS s(";
  for (size_t i = 0; i < aliases.size(); ++i)
    out += (i ? ", " : "") + aliases[i];
  return out + ")";
}

void copy_stager::copy_into(pqxx::transaction_base& tx, const std::string& table,
                            const std::vector<std::string>& columns) {
  if (_rows == 0) return;
  _data.pop_back();  // write_raw_line() ends the last line itself
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  // libpqxx 6.4 splices the table and column names into COPY as given: they come quoted.
  pqxx::tablewriter copy(tx, table, columns.begin(), columns.end());
  copy.write_raw_line(_data);
  copy.complete();
#pragma GCC diagnostic pop
  _data.clear();
  _rows = 0;
}

void copy_stager::transaction_begun() {
  _created.clear();
  _filled.clear();
  _unsure = false;
}

void copy_stager::transaction_committed() {
  _known.insert(_created.begin(), _created.end());
  transaction_begun();
}

void copy_stager::savepoint_rolled_back() {
  // A table created after the savepoint is gone again; one filled before it still holds rows.
  _created.clear();
  _unsure = true;
}

void copy_stager::session_lost() {
  _known.clear();
  transaction_begun();
}

}  // namespace sluice
