#include "sinks/mariadb/session/key_locks.h"

#include <algorithm>
#include <stdexcept>

namespace sluice::mdb {
namespace {

constexpr uint64_t fnv_offset = 14695981039346656037ull;
constexpr uint64_t fnv_prime = 1099511628211ull;

uint64_t fnv1a(uint64_t h, std::string_view bytes) {
  for (char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= fnv_prime;
  }
  return h;
}

// hash(schema \0 name \0): the prefix of every key hash of a table.
uint64_t key_prefix_hash(const target_table& t) {
  const std::string_view nul("\0", 1);
  uint64_t h = fnv1a(fnv_offset, t.schema);
  h = fnv1a(h, nul);
  h = fnv1a(h, t.name);
  return fnv1a(h, nul);
}

}  // namespace

uint64_t key_hash(const target_table& table, std::string_view canonical_key) {
  return fnv1a(key_prefix_hash(table), canonical_key);
}

void key_lock_set::clear() {
  _finished = false;
  _has_last = false;
  _table_requests.clear();
  _key_tables.clear();
  _tables.clear();
  _exclusive.clear();
  _keys.clear();
}

void key_lock_set::add_table(const target_table& table, bool exclusive) {
  _finished = false;
  _table_requests.emplace_back(table, exclusive);
}

void key_lock_set::add_key(const target_table& table, std::string_view canonical_key) {
  _finished = false;
  // A batch adds the keys of one table after another: its prefix is hashed once per run.
  if (!_has_last || table.name != _last_table.name || table.schema != _last_table.schema) {
    _has_last = true;
    _last_table = table;
    _last_hash = key_prefix_hash(table);
    _key_tables.push_back(table);
  }
  _keys.push_back(fnv1a(_last_hash, canonical_key));
}

void key_lock_set::finish() {
  if (_finished) return;
  _finished = true;
  std::sort(_keys.begin(), _keys.end());
  _keys.erase(std::unique(_keys.begin(), _keys.end()), _keys.end());
  if (_keys.size() > _max_keys) {
    // Too many keys: the tables of those keys are locked exclusively instead.
    for (const target_table& t : _key_tables)
      _table_requests.emplace_back(t, true);
    _keys.clear();
  }
  _key_tables.clear();
  _has_last = false;
  // Exclusive sorts after shared for one table, so the last of each run decides. The order is
  // the bytes' (std::string's), which is table_locks' own (utf8mb4_nopad_bin).
  std::sort(_table_requests.begin(), _table_requests.end());
  _tables.clear();
  _exclusive.clear();
  for (size_t i = 0; i < _table_requests.size(); ++i) {
    const bool last =
        i + 1 == _table_requests.size() || _table_requests[i + 1].first != _table_requests[i].first;
    if (!last) continue;
    _tables.push_back(_table_requests[i].first);
    _exclusive.push_back(_table_requests[i].second);
  }
}

std::string key_lock_set::table_lock_sql(bool exclusive) const {
  // One row by its primary key: InnoDB locks that row alone (an IN of row constructors could
  // be read as a scan, locking rows other batches hold).
  return "SELECT 1 FROM " + _schema.table("table_locks") +
         " WHERE target_schema = ? AND target_table = ? " +
         (exclusive ? "FOR UPDATE" : "LOCK IN SHARE MODE");
}

std::string key_lock_set::key_lock_sql() const {
  // The no-op update still takes the row's exclusive lock, as the insert of a new row does.
  return "INSERT INTO " + _schema.table("key_locks") +
         " (key_hash) VALUES (?) ON DUPLICATE KEY UPDATE key_hash = key_hash";
}

void key_lock_set::prepare(connection& conn) {
  finish();
  const std::string sql = "INSERT IGNORE INTO " + _schema.table("table_locks") +
                          " (target_schema, target_table) VALUES (?, ?)";
  for (const target_table& t : _tables) {
    if (_prepared.contains(t)) continue;
    conn.exec(sql, std::vector{param::text(t.schema), param::text(t.name)});
    _prepared.insert(t);
  }
}

void key_lock_set::acquire(connection& conn) {
  finish();
  for (size_t i = 0; i < _tables.size(); ++i) {
    const target_table& t = _tables[i];
    const result got = conn.query(table_lock_sql(_exclusive[i]),
                                  std::vector{param::text(t.schema), param::text(t.name)});
    if (got.empty()) {
      _prepared.erase(t);
      throw std::logic_error("no table_locks row for " + t.schema + "." + t.name +
                             ": key_lock_set::prepare() runs before the transaction");
    }
  }
  if (_keys.empty()) return;
  // Big-endian: binary(8) compares byte by byte, so the rows' order is the hashes'.
  _bound.resize(_keys.size() * 8);
  for (size_t i = 0; i < _keys.size(); ++i) {
    for (int b = 0; b < 8; ++b)
      _bound[i * 8 + b] = static_cast<char>(_keys[i] >> (56 - 8 * b));
  }
  _params.clear();
  for (size_t i = 0; i < _keys.size(); ++i)
    _params.push_back(param::bytes(std::string_view(_bound).substr(i * 8, 8)));
  const std::string sql = key_lock_sql();
  for (size_t at = 0; at < _params.size(); at += key_chunk) {
    const size_t n = std::min(key_chunk, _params.size() - at);
    conn.exec_bulk(sql, 1, std::span<const param>(_params).subspan(at, n));
  }
}

}  // namespace sluice::mdb
