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

std::string key_lock_set::key_lock_sql(std::span<const uint64_t> keys) const {
  // Hexadecimal literals of sluice's own hashes (big-endian, as binary(8) compares them), in
  // the order given: one multi-row statement, each row inserted — or found, and locked by the
  // no-op update — in the order written. (An array-bound statement cost MariaDB more CPU.)
  static constexpr char digits[] = "0123456789abcdef";
  std::string sql = "INSERT INTO " + _schema.table("key_locks") + " (key_hash) VALUES ";
  sql.reserve(sql.size() + keys.size() * 21 + 48);
  for (size_t i = 0; i < keys.size(); ++i) {
    sql += i ? ",(0x" : "(0x";
    for (int shift = 60; shift >= 0; shift -= 4)
      sql.push_back(digits[(keys[i] >> shift) & 0xf]);
    sql.push_back(')');
  }
  return sql + " ON DUPLICATE KEY UPDATE key_hash = key_hash";
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
  for (size_t at = 0; at < _keys.size(); at += key_chunk) {
    const size_t n = std::min(key_chunk, _keys.size() - at);
    conn.exec(key_lock_sql(std::span<const uint64_t>(_keys).subspan(at, n)));
  }
}

}  // namespace sluice::mdb
