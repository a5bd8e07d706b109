#include "connector/prepare/transforms/column_rules.h"

#include <algorithm>

#include "core/catalog/table_catalog.h"

namespace sluice {
namespace {

std::string table_of(const change& c) {
  return c.table ? c.table->name.qualified() : std::string("the table");
}

}  // namespace

column_rules::column_rules(name_set include, name_set exclude, rename_map rename, std::string who)
    : _include(std::move(include)),
      _exclude(std::move(exclude)),
      _rename(std::move(rename)),
      _who(std::move(who)) {}

bool column_rules::kept(const std::string& name, const row_key& key) const {
  if (_exclude.contains(name)) return false;
  return _include.empty() || _include.contains(name) ||
         std::find(key.columns.begin(), key.columns.end(), name) != key.columns.end();
}

shared_column_types column_rules::types_for(const shared_column_types& types, const row_key& key) {
  if (!types) return types;
  auto [it, inserted] = _types.try_emplace(types.get());
  if (!inserted) return it->second.second;
  // Schemas come and go: the cache is bounded, high enough that one ReplaceField shared by
  // every table of a large source (one entry per table and schema version) never thrashes.
  if (_types.size() > 4096) {
    _types.clear();
    it = _types.try_emplace(types.get()).first;
  }
  auto out = std::make_shared<column_types>();
  for (const column_types::column& c : types->columns) {
    if (!kept(c.name, key)) continue;
    column_types::column& added = out->columns.emplace_back(c);
    if (auto renamed = _rename.find(c.name); renamed != _rename.end()) added.name = renamed->second;
  }
  it->second = {types, std::move(out)};
  return it->second.second;
}

const std::string& column_rules::source_name(const std::string& name) const {
  for (const auto& [from, to] : _rename) {
    if (to == name) return from;  // one at most: two onto one name are refused at apply()
  }
  return name;
}

std::optional<std::string> column_rules::apply(change& c) {
  if (none()) return std::nullopt;
  for (const std::string& k : c.key.columns) {
    if (_exclude.contains(k)) {
      return _who + ": " + k + " is a key column of " + table_of(c) + " and cannot be excluded";
    }
  }
  if (!_exclude.empty() || !_include.empty()) {
    std::erase_if(c.after, [&](const column_value& v) { return !kept(v.name, c.key); });
  }
  if (_rename.empty()) {
    c.types = types_for(c.types, c.key);
    return std::nullopt;
  }
  for (size_t i = 0; i < c.after.size(); ++i) {
    auto it = _rename.find(c.after[i].name);
    if (it == _rename.end()) continue;
    c.after[i].name = it->second;
    // Onto a name another column holds (kept or renamed): which value wins would be a guess.
    // Columns before i hold their new names already, those after it their old ones.
    for (size_t j = 0; j < c.after.size(); ++j) {
      if (j == i) continue;
      const std::string& other = c.after[j].name;
      const auto other_renamed = j > i ? _rename.find(other) : _rename.end();
      if ((other_renamed == _rename.end() ? other : other_renamed->second) == it->second) {
        return _who + ": two columns of " + table_of(c) + " are renamed onto " + it->second;
      }
    }
  }
  c.types = types_for(c.types, c.key);
  for (row_key* key : {&c.key, c.old_key ? &*c.old_key : nullptr}) {
    if (key == nullptr) continue;
    for (std::string& k : key->columns) {
      if (auto it = _rename.find(k); it != _rename.end()) k = it->second;
    }
  }
  return std::nullopt;
}

}  // namespace sluice
