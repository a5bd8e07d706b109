#include "connector/prepare/field_selection.h"

#include <algorithm>

#include "core/catalog/table_catalog.h"

namespace sluice {
namespace {

bool any_rule(const field_rules& f) {
  return !f.include.empty() || !f.exclude.empty() || !f.rename.empty();
}

// A global entry: `field` for every topic, `topic:field` for one (Kafka topic names cannot
// hold a ':').
void add_entries(const std::vector<std::string>& entries, std::string_view topic,
                 std::unordered_set<std::string>& into) {
  for (const std::string& e : entries) {
    const size_t colon = e.find(':');
    if (colon == std::string::npos) {
      into.insert(e);
    } else if (std::string_view(e).substr(0, colon) == topic) {
      into.insert(e.substr(colon + 1));
    }
  }
}

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

field_selection::field_selection(const config& c) : _config(c) {
  _empty = !any_rule(c.fields);
  for (const auto& [name, table] : c.tables)
    _empty = _empty && !any_rule(table.fields);
}

field_selection::rules field_selection::compile(const table_entry& table,
                                                std::string_view topic) const {
  rules r;
  add_entries(_config.fields.include, topic, r.include);
  add_entries(_config.fields.exclude, topic, r.exclude);
  for (const auto& [from, to] : _config.fields.rename)
    r.rename[from] = to;
  for (const auto& [name, t] : _config.tables) {
    if (!table.name.matches(name)) continue;
    r.include.insert(t.fields.include.begin(), t.fields.include.end());
    r.exclude.insert(t.fields.exclude.begin(), t.fields.exclude.end());
    for (const auto& [from, to] : t.fields.rename)
      r.rename[from] = to;  // the table's win
  }
  r.none = r.include.empty() && r.exclude.empty() && r.rename.empty();
  return r;
}

field_selection::rules& field_selection::rules_for(const table_entry& table,
                                                   std::string_view topic) {
  auto& by_topic = _rules[&table];
  for (const auto& [t, r] : by_topic) {
    if (t == topic) return *r;
  }
  by_topic.emplace_back(std::string(topic), std::make_unique<rules>(compile(table, topic)));
  return *by_topic.back().second;
}

bool field_selection::kept(const rules& r, const std::string& name, const row_key& key) {
  if (r.exclude.contains(name)) return false;
  return r.include.empty() || r.include.contains(name) || contains(key.columns, name);
}

shared_column_types field_selection::types_for(const shared_column_types& types, rules& r,
                                               const row_key& key) {
  if (!types) return types;
  auto [it, inserted] = r.types.try_emplace(types.get());
  if (!inserted) return it->second.second;
  if (r.types.size() > 64) {  // a table's schemas come and go: keep the cache bounded
    r.types.clear();
    it = r.types.try_emplace(types.get()).first;
  }
  auto out = std::make_shared<column_types>();
  for (const column_types::column& c : types->columns) {
    if (!kept(r, c.name, key)) continue;
    column_types::column& added = out->columns.emplace_back(c);
    if (auto renamed = r.rename.find(c.name); renamed != r.rename.end())
      added.name = renamed->second;
  }
  it->second = {types, std::move(out)};
  return it->second.second;
}

std::optional<std::string> field_selection::apply(change& c, std::string_view topic) {
  if (_empty || c.table == nullptr) return std::nullopt;
  rules& r = rules_for(*c.table, topic);
  if (r.none) return std::nullopt;
  for (const std::string& k : c.key.columns) {
    if (r.exclude.contains(k)) {
      return "field rules: " + k + " is a key column of " + c.table->name.qualified() +
             " and cannot be excluded";
    }
  }
  std::erase_if(c.after, [&](const column_value& v) { return !kept(r, v.name, c.key); });
  if (r.rename.empty()) {
    c.types = types_for(c.types, r, c.key);
    return std::nullopt;
  }
  for (size_t i = 0; i < c.after.size(); ++i) {
    auto it = r.rename.find(c.after[i].name);
    if (it == r.rename.end()) continue;
    c.after[i].name = it->second;
    // Onto a name another column holds (kept or renamed): which value wins would be a guess.
    for (size_t j = 0; j < c.after.size(); ++j) {
      if (j == i) continue;
      const std::string& other = c.after[j].name;
      const auto other_renamed = j > i ? r.rename.find(other) : r.rename.end();
      if ((other_renamed == r.rename.end() ? other : other_renamed->second) == it->second) {
        return "field rules: two columns of " + c.table->name.qualified() + " are renamed onto " +
               it->second;
      }
    }
  }
  c.types = types_for(c.types, r, c.key);
  for (row_key* key : {&c.key, c.old_key ? &*c.old_key : nullptr}) {
    if (key == nullptr) continue;
    for (std::string& k : key->columns) {
      if (auto it = r.rename.find(k); it != r.rename.end()) k = it->second;
    }
  }
  return std::nullopt;
}

}  // namespace sluice
