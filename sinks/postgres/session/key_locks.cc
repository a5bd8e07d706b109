#include "sinks/postgres/session/key_locks.h"

#include <algorithm>

#include "sinks/postgres/sql/advisory_lock_space.h"
#include "sinks/postgres/sql/pg_array.h"

namespace sluice {
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

uint64_t table_hash(const target_table& t) {
  uint64_t h = fnv1a(fnv_offset, t.schema);
  h = fnv1a(h, std::string_view("\0", 1));
  return fnv1a(h, t.name);
}

}  // namespace

int32_t table_lock_key(const target_table& table) {
  const uint64_t h = table_hash(table);
  return static_cast<int32_t>(static_cast<uint32_t>(h ^ (h >> 32)));
}

int32_t key_lock_key(const target_table& table, std::string_view canonical_key) {
  uint64_t h = fnv1a(table_hash(table), std::string_view("\0", 1));
  h = fnv1a(h, canonical_key);
  return static_cast<int32_t>(static_cast<uint32_t>(h ^ (h >> 32)));
}

void key_lock_set::clear() {
  _has_last = false;
  _table_requests.clear();
  _key_tables.clear();
  _tables.clear();
  _exclusive.clear();
  _keys.clear();
}

void key_lock_set::add_table(const target_table& table, bool exclusive) {
  _table_requests.emplace_back(table_lock_key(table), exclusive);
}

void key_lock_set::add_key(const target_table& table, std::string_view canonical_key) {
  // A batch adds the keys of one table after another: its hashes are made once per run.
  if (!_has_last || table.name != _last_table.name || table.schema != _last_table.schema) {
    _has_last = true;
    _last_table = table;
    _last_hash = fnv1a(table_hash(table), std::string_view("\0", 1));
    _key_tables.push_back(table_lock_key(table));
  }
  const uint64_t h = fnv1a(_last_hash, canonical_key);
  _keys.push_back(static_cast<int32_t>(static_cast<uint32_t>(h ^ (h >> 32))));
}

void key_lock_set::finish() {
  std::sort(_keys.begin(), _keys.end());
  _keys.erase(std::unique(_keys.begin(), _keys.end()), _keys.end());
  if (_keys.size() > _max_keys) {
    // Too many key locks: the tables of those keys are locked exclusively instead.
    for (int32_t t : _key_tables)
      _table_requests.emplace_back(t, true);
    _keys.clear();
  }
  _key_tables.clear();
  _has_last = false;
  // Exclusive sorts after shared for one key, so the last of each run decides.
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
const char* key_lock_set::sql() {
  // unnest() yields its array in order and Append runs its branches in order: the locks are
  // taken in exactly the order of the arrays.
  return "SELECT count(l) FROM ("
         "SELECT CASE WHEN x THEN pg_advisory_xact_lock($1, k) "
         "ELSE pg_advisory_xact_lock_shared($1, k) END AS l "
         "FROM unnest($2::int4[], $3::bool[]) AS u(k, x) "
         "UNION ALL "
         "SELECT pg_advisory_xact_lock($4, b) FROM unnest($5::int4[]) AS b) AS q";
}

void key_lock_set::acquire(pqxx::transaction_base& tx) {
  finish();
  if (_tables.empty() && _keys.empty()) return;
  pg_array tables, exclusive, keys;
  for (size_t i = 0; i < _tables.size(); ++i) {
    tables.add_int(_tables[i]);
    exclusive.add_bool(_exclusive[i]);
  }
  for (int32_t k : _keys)
    keys.add_int(k);
  tx.exec_params(sql(), advisory_lock_space::table, tables.take(), exclusive.take(),
                 advisory_lock_space::key, keys.take());
}

}  // namespace sluice
