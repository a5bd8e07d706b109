#include "tests/sinks/apply_history.h"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <utility>

#include "core/model/csn.h"
#include "core/model/row_key.h"

namespace sluice {
namespace {

// Strings that break naive quoting: array syntax, COPY's text format, SQL literals.
const char* const hostile_strings[] = {
    "",          "NULL",        "\\N",     "tab\there", "line\nbreak",
    "cr\rhere",  "back\\slash", "quo\"te", "it's",      "{braces,comma}",
    "ünïcødé ✓", "  padded  ",  "\\.",     "a\\tb",     "end\\",
    "x"};

bool chance(std::mt19937_64& rng, double p) {
  return std::uniform_real_distribution<double>(0, 1)(rng) < p;
}

int64_t pick(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

value random_value(std::mt19937_64& rng, size_t column) {
  if (chance(rng, 0.12)) return value::null();
  switch (column) {
    case 0: {
      const int64_t r = pick(rng, 0, 9);
      if (r == 0) return value::number("98765432109876543210.5");
      if (r == 1) return value::number(std::to_string(pick(rng, 0, 99)) + ".50");
      return value::number(std::to_string(pick(rng, -50, 500)));
    }
    case 1: {
      if (chance(rng, 0.6)) {
        return value::string(hostile_strings[pick(rng, 0, std::size(hostile_strings) - 1)]);
      }
      return value::string("s" + std::to_string(pick(rng, 0, 99999)));
    }
    case 2:
      return value::boolean(chance(rng, 0.5));
    default:
      return value::json("{\"x\": " + std::to_string(pick(rng, 0, 999)) + "}");
  }
}

image full_image(std::mt19937_64& rng) {
  image img;
  for (size_t c = 0; c < history_columns.size(); ++c)
    img.push_back({history_columns[c], random_value(rng, c)});
  return img;
}

image partial_image(std::mt19937_64& rng) {
  image img;
  for (size_t c = 0; c < history_columns.size(); ++c) {
    if (chance(rng, 0.5)) img.push_back({history_columns[c], random_value(rng, c)});
  }
  return img;
}

csn seq_of(int64_t n) {
  return csn_builder().add(n).build();
}

row_key key_of(int64_t id) {
  auto k = make_row_key({"id"}, {value::number(std::to_string(id))});
  if (!k.ok()) throw std::logic_error("bad key");
  return std::move(k.value());
}

std::string text_of(const value& v) {
  std::string out;
  switch (v.kind) {
    case value_kind::absent:
      return "absent";
    case value_kind::null:
      return "NULL";
    case value_kind::string:
      out = "'";
      for (char c : v.text) {
        if (c == '\n') {
          out += "\\n";
        } else if (c == '\t') {
          out += "\\t";
        } else if (c == '\r') {
          out += "\\r";
        } else {
          out.push_back(c);
        }
      }
      return out + "'";
    default:
      return v.text;
  }
}

// What PostgreSQL prints for a value (boolean::text is "true"/"false").
std::optional<std::string> printed(const value& v) {
  if (v.is_null() || v.is_absent()) return std::nullopt;
  return v.text;
}

}  // namespace

std::string describe(const source_event& e) {
  std::string out = "csn " + std::to_string(e.seq) + " ";
  switch (e.what) {
    case source_event::kind::upsert:
      out += "upsert " + std::to_string(e.key);
      break;
    case source_event::kind::remove:
      out += "delete " + std::to_string(e.key);
      break;
    case source_event::kind::key_change:
      out += "key " + std::to_string(e.old_key) + "->" + std::to_string(e.key);
      break;
    case source_event::kind::truncate:
      return out + "truncate";
  }
  if (e.what != source_event::kind::remove) {
    out += e.partial ? " partial {" : " full {";
    for (size_t i = 0; i < e.img.size(); ++i)
      out += (i ? ", " : "") + e.img[i].name + ": " + text_of(e.img[i].v);
    out += "}";
  }
  return out;
}

std::string describe(const row_texts& row) {
  std::string out = "{";
  for (size_t c = 0; c < row.size(); ++c) {
    out += std::string(c ? ", " : "") + history_columns[c] + ": ";
    out += row[c] ? text_of(value::string(*row[c])) : "NULL";
  }
  return out + "}";
}

int64_t generate_history(std::mt19937_64& rng, const history_options& o, int64_t base,
                         std::vector<source_event>& out) {
  std::vector<bool> live(static_cast<size_t>(o.keys), false);
  std::set<std::pair<int64_t, int64_t>> upserted;  // (key, seq): one image per key and CSN
  int64_t seq = 0;
  auto idx = [&](int64_t key) { return static_cast<size_t>(key - base); };
  auto first_dead = [&](int64_t from) -> int64_t {
    std::vector<int64_t> dead;
    for (int64_t k = base; k < base + o.keys; ++k) {
      if (!live[idx(k)] && k != from) dead.push_back(k);
    }
    if (dead.empty()) return -1;
    return dead[static_cast<size_t>(pick(rng, 0, static_cast<int64_t>(dead.size()) - 1))];
  };
  const int length = static_cast<int>(pick(rng, o.min_length, o.max_length));
  for (int step = 0; step < length; ++step) {
    const int64_t key = base + pick(rng, 0, o.keys - 1);
    // Now and then an operation shares the previous one's CSN (a bulk statement).
    const bool share = seq > 0 && chance(rng, 0.1);
    const int64_t at = share ? seq : seq + 1;
    auto may_upsert = [&](int64_t k) { return !upserted.count({k, at}); };
    source_event e;
    e.seq = at;
    e.key = key;
    const double r = std::uniform_real_distribution<double>(0, 1)(rng);
    if (!live[idx(key)]) {
      if (!may_upsert(key)) continue;
      if (r < 0.85) {
        e.img = full_image(rng);  // insert, or re-insert after a delete
      } else if (o.partials && r < 0.93) {
        e.partial = true;  // an update of a row the replica may never have seen
        e.img = partial_image(rng);
      } else {
        e.what = source_event::kind::remove;  // a delete of a missing row
      }
    } else if (r < 0.3) {
      if (!may_upsert(key)) continue;
      e.img = full_image(rng);
    } else if (r < 0.55) {
      if (!may_upsert(key)) continue;
      e.partial = o.partials;
      e.img = o.partials ? partial_image(rng) : full_image(rng);
    } else if (r < 0.75) {
      e.what = source_event::kind::remove;
    } else if (r < 0.87) {
      const int64_t to = first_dead(key);
      if (to < 0 || !may_upsert(to)) continue;
      e.what = source_event::kind::key_change;
      e.old_key = key;
      e.key = to;
      e.partial = o.partials && chance(rng, 0.3);
      e.img = e.partial ? partial_image(rng) : full_image(rng);
    } else {
      // pk = pk + 1 over the live run [key, top]: every row moves up one at one CSN, so
      // each key but the lowest is both vacated and re-taken at that CSN.
      int64_t top = key;
      while (top + 1 < base + o.keys && live[idx(top + 1)])
        ++top;
      if (top + 1 >= base + o.keys) continue;
      bool free = true;
      for (int64_t k = key + 1; k <= top + 1; ++k)
        free = free && may_upsert(k);
      if (!free) continue;
      for (int64_t k = top; k >= key; --k) {
        source_event move;
        move.what = source_event::kind::key_change;
        move.seq = at;
        move.old_key = k;
        move.key = k + 1;
        move.img = full_image(rng);
        upserted.insert({k + 1, at});
        out.push_back(std::move(move));
      }
      live[idx(key)] = false;
      live[idx(top + 1)] = true;
      seq = at;
      continue;
    }
    switch (e.what) {
      case source_event::kind::upsert:
        live[idx(e.key)] = true;
        upserted.insert({e.key, at});
        if (o.conflicts && chance(rng, 0.2)) {
          // Another image of the key at this CSN: the source sent two (a conflict).
          source_event twin = e;
          twin.img = e.partial ? partial_image(rng) : full_image(rng);
          out.push_back(std::move(twin));
        }
        break;
      case source_event::kind::remove:
        live[idx(e.key)] = false;
        break;
      case source_event::kind::key_change:
        live[idx(e.old_key)] = false;
        live[idx(e.key)] = true;
        upserted.insert({e.key, at});
        break;
      case source_event::kind::truncate:
        break;
    }
    seq = at;
    out.push_back(std::move(e));
  }
  return seq;
}

namespace {

// The merge's order of two values at one CSN (merge_engine.cc): a value over NULL, then the
// greater text.
bool kept_over(const value& a, const value& b) {
  const std::optional<std::string> x = printed(a), y = printed(b);
  if (x.has_value() != y.has_value()) return x.has_value();
  return x && *x > *y;
}

}  // namespace

std::map<int64_t, row_texts> expected_state(const std::vector<source_event>& events,
                                            bool truncates_applied) {
  struct key_facts {
    std::optional<int64_t> upsert, remove;
    std::array<std::optional<std::pair<int64_t, value>>, 4> columns;  // newest image per column
  };
  std::map<int64_t, key_facts> keys;
  auto raise = [](std::optional<int64_t>& at, int64_t seq) {
    if (!at || *at < seq) at = seq;
  };
  std::optional<int64_t> truncated;
  for (const source_event& e : events) {
    if (e.what == source_event::kind::truncate) {
      if (truncates_applied) raise(truncated, e.seq);
      continue;
    }
    if (e.what == source_event::kind::remove) {
      raise(keys[e.key].remove, e.seq);
      continue;
    }
    if (e.what == source_event::kind::key_change) raise(keys[e.old_key].remove, e.seq);
    key_facts& k = keys[e.key];
    raise(k.upsert, e.seq);
    for (const column_value& cv : e.img) {
      const auto at = std::find(history_columns.begin(), history_columns.end(), cv.name);
      auto& slot = k.columns[static_cast<size_t>(at - history_columns.begin())];
      if (!slot || slot->first < e.seq || (slot->first == e.seq && kept_over(cv.v, slot->second))) {
        slot = std::make_pair(e.seq, cv.v);
      }
    }
  }
  std::map<int64_t, row_texts> out;
  for (auto& [key, k] : keys) {
    // A truncate deletes every row at its CSN.
    if (truncated) raise(k.remove, *truncated);
    if (!k.upsert || (k.remove && *k.upsert < *k.remove)) continue;
    row_texts row;
    for (size_t c = 0; c < row.size(); ++c) {
      const auto& slot = k.columns[c];
      if (slot && !(k.remove && slot->first < *k.remove)) row[c] = printed(slot->second);
    }
    out.emplace(key, std::move(row));
  }
  return out;
}

void append_changes(const source_event& e, table_entry* table, bool split_key_change,
                    std::vector<change>& out) {
  change c;
  c.table = table;
  c.seq = seq_of(e.seq);
  if (e.what == source_event::kind::truncate) {
    c.op = op_kind::truncate;
    out.push_back(std::move(c));
    return;
  }
  c.key = key_of(e.key);
  if (e.what == source_event::kind::remove) {
    c.op = op_kind::remove;
    out.push_back(std::move(c));
    return;
  }
  c.op = op_kind::upsert;
  c.partial = e.partial;
  c.after.push_back({"id", value::number(std::to_string(e.key))});
  c.after.insert(c.after.end(), e.img.begin(), e.img.end());
  if (e.what == source_event::kind::key_change) {
    if (split_key_change) {
      change gone;
      gone.op = op_kind::remove;
      gone.table = table;
      gone.seq = c.seq;
      gone.key = key_of(e.old_key);
      out.push_back(std::move(gone));
    } else {
      c.old_key = key_of(e.old_key);
    }
  }
  out.push_back(std::move(c));
}

}  // namespace sluice
