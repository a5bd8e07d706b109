#include "core/merge/merge_engine.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace sluice {
namespace {

uint64_t key_prefix(const std::string& k) {
  uint64_t v = 0;
  for (size_t i = 0; i < 8; ++i)
    v = (v << 8) | (i < k.size() ? static_cast<unsigned char>(k[i]) : 0);
  return v;
}

// The order two values of one column at one CSN are kept by: a value beats NULL, then the
// greater text, byte by byte. The applier applies the same rule in the database, across
// batches (sinks/postgres/write_sql.h), over the stored text; the kinds are not compared
// because the database does not keep them (a text column may hold numbers and strings).
bool value_greater(const value& a, const value& b) {
  const bool a_set = !a.is_null() && !a.is_absent();
  const bool b_set = !b.is_null() && !b.is_absent();
  if (a_set != b_set) return a_set;
  return a_set && a.text > b.text;
}

// Folds one upsert image into the row's columns: a column takes the value of the highest CSN
// that carried it; at equal CSN the greater value wins, so the outcome is order-free.
// move_values: the image is not looked at again, so its names and values may be taken.
void fold_image(std::vector<merged_column>& columns, image& img, const csn& seq, bool move_values) {
  if (columns.empty()) columns.reserve(img.size());
  for (size_t i = 0; i < img.size(); ++i) {
    column_value& cv = img[i];
    if (cv.v.is_absent()) continue;
    // Images of one table mostly list their columns in one order: try the same position first.
    auto it = i < columns.size() && columns[i].name == cv.name
                  ? columns.begin() + static_cast<std::ptrdiff_t>(i)
                  : std::find_if(columns.begin(), columns.end(),
                                 [&](const merged_column& m) { return m.name == cv.name; });
    if (it == columns.end()) {
      if (move_values) {
        columns.emplace_back(std::move(cv.name), std::move(cv.v), seq);
      } else {
        columns.emplace_back(cv.name, cv.v, seq);
      }
      continue;
    }
    if (seq > it->seq || (seq == it->seq && value_greater(cv.v, it->v))) {
      it->v = move_values ? std::move(cv.v) : cv.v;
      it->seq = seq;
    }
  }
}

}  // namespace

merged_batch merge_engine::merge(std::vector<change>&& changes) {
  merged_batch out;
  out.stats.input = changes.size();
  _entries.clear();
  _entries.reserve(changes.size() + 8);

  // Tables in name order, so the output (and the apply order) is deterministic.
  std::map<table_name, table_rows> by_table;
  auto rows_of = [&](table_entry* t) -> table_rows& {
    table_rows& tr = by_table[t->name];
    tr.table = t;
    return tr;
  };

  const column_types* last_types = nullptr;
  const table_entry* last_named = nullptr;
  for (uint32_t i = 0; i < changes.size(); ++i) {
    change& c = changes[i];
    if (c.table != last_named) {
      last_named = c.table;
      table_rows& tr = rows_of(c.table);
      if (tr.topic.empty()) tr.topic = c.source.origin.topic;
    }
    if (c.types && c.types.get() != last_types) {
      // Changes of one schema share its types: a table's list holds each schema once.
      last_types = c.types.get();
      std::vector<shared_column_types>& seen = rows_of(c.table).types;
      if (std::find(seen.begin(), seen.end(), c.types) == seen.end()) seen.push_back(c.types);
    }
    if (c.op == op_kind::truncate) {
      table_rows& tr = rows_of(c.table);
      const bool first = tr.truncate_seq.empty();
      if (first) {
        tr.truncate_scope = std::move(c.key);
      } else if (c.key.columns != tr.truncate_scope.columns ||
                 c.key.canonical != tr.truncate_scope.canonical) {
        // Order-free: whichever came first, the scopes differ and the truncate is refused.
        tr.truncate_scopes_differ = true;
        tr.truncate_scope = {};
      }
      if (first || c.seq > tr.truncate_seq) tr.truncate_seq = c.seq;
      continue;
    }
    if (c.key.empty()) {
      table_rows& tr = rows_of(c.table);
      tr.newest_source_ts = std::max(tr.newest_source_ts, c.source.source_ts);
      tr.keyless.push_back(std::move(c));
      continue;
    }
    _entries.push_back({c.table, &c.key, key_prefix(c.key.canonical), i, false});
    if (c.old_key && !c.old_key->empty() && c.old_key->canonical != c.key.canonical) {
      _entries.push_back({c.table, &*c.old_key, key_prefix(c.old_key->canonical), i, true});
    }
  }

  std::sort(_entries.begin(), _entries.end(), [&](const entry& a, const entry& b) {
    if (a.table != b.table) return a.table->name < b.table->name;
    if (a.prefix != b.prefix) return a.prefix < b.prefix;
    if (int cmp = a.key->canonical.compare(b.key->canonical); cmp != 0) return cmp < 0;
    const change& ca = changes[a.index];
    const change& cb = changes[b.index];
    if (ca.seq != cb.seq) return ca.seq > cb.seq;  // newest first
    return a.index < b.index;
  });

  table_entry* last_table = nullptr;
  table_rows* last_rows = nullptr;
  for (size_t begin = 0; begin < _entries.size();) {
    size_t end = begin + 1;
    while (end < _entries.size() && _entries[end].table == _entries[begin].table &&
           _entries[end].key->canonical == _entries[begin].key->canonical) {
      ++end;
    }
    if (_entries[begin].table != last_table) {
      last_table = _entries[begin].table;
      last_rows = &rows_of(last_table);
      last_rows->rows.reserve(_entries.size());
    }
    table_rows& tr = *last_rows;
    // Built in place: rows were reserved for every entry, so the reference stays valid.
    merged_row& row = tr.rows.emplace_back();
    // The changes are consumed: the key moves out of the group's first change, the newest
    // (entries are newest first), and so does its origin, unless the change also has an
    // entry under its old key (a key change), which needs it too.
    change& newest = changes[_entries[begin].index];
    if (newest.old_key && !newest.old_key->empty()) {
      row.origin = newest.source.origin;
    } else {
      row.origin = std::move(newest.source.origin);
    }
    row.key = std::move(const_cast<row_key&>(*_entries[begin].key));

    auto is_delete = [&](const entry& e) {
      return e.old_key || changes[e.index].op == op_kind::remove;
    };
    for (size_t k = begin; k < end; ++k) {
      const change& c = changes[_entries[k].index];
      row.source_ts = std::max(row.source_ts, c.source.source_ts);
      if (is_delete(_entries[k])) {
        if (c.seq > row.delete_seq) row.delete_seq = c.seq;
      } else if (c.seq > row.upsert_seq || row.upsert_seq.empty()) {
        row.upsert_seq = c.seq;
      }
    }

    size_t duplicates = 0;
    if (row.exists()) {
      // Entries are newest first: the first upsert seen for a CSN is compared with later
      // ones at the same CSN to tell duplicates from conflicts, so an image may be taken
      // (moved from) only when no later entry of the group shares its CSN.
      const change* prev = nullptr;
      for (size_t k = begin; k < end; ++k) {
        const entry& e = _entries[k];
        if (is_delete(e)) {
          if (k > begin && is_delete(_entries[k - 1]) &&
              changes[_entries[k - 1].index].seq == changes[e.index].seq) {
            ++duplicates;
          }
          continue;
        }
        change& c = changes[e.index];
        if (c.seq < row.delete_seq) continue;  // overtaken by a newer delete
        if (prev && prev->seq == c.seq) {
          if (prev->after == c.after) {
            ++duplicates;
            continue;
          }
          ++out.stats.csn_conflicts;
          ++tr.csn_conflicts;
        }
        row.partial = row.partial || c.partial;
        const bool last_of_csn = k + 1 == end || changes[_entries[k + 1].index].seq != c.seq;
        fold_image(row.columns, c.after, c.seq, /*move_values=*/last_of_csn);
        prev = &c;
      }
    } else {
      for (size_t k = begin + 1; k < end; ++k) {
        const change& a = changes[_entries[k - 1].index];
        const change& b = changes[_entries[k].index];
        if (a.seq == b.seq && a.op == b.op &&
            is_delete(_entries[k]) == is_delete(_entries[k - 1]) && a.after == b.after) {
          ++duplicates;
        }
      }
    }
    tr.partial = tr.partial || row.partial;
    tr.newest_source_ts = std::max(tr.newest_source_ts, row.source_ts);
    out.stats.duplicates += duplicates;
    out.stats.collapsed += (end - begin - 1) - duplicates;
    tr.collapsed += (end - begin - 1) - duplicates;
    ++out.stats.rows;
    begin = end;
  }

  out.tables.reserve(by_table.size());
  for (auto& [_, tr] : by_table)
    out.tables.push_back(std::move(tr));
  return out;
}

}  // namespace sluice
