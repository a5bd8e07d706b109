#include "core/catalog/table_catalog.h"

namespace sluice {

std::string table_name::qualified() const {
  std::string out;
  for (const std::string* part : {&database, &schema, &table}) {
    if (part->empty()) continue;
    if (!out.empty()) out.push_back('.');
    out += *part;
  }
  return out;
}

bool table_name::matches(std::string_view configured) const {
  if (configured == qualified()) return true;
  auto joined = [](const std::string& a, const std::string& b) { return a + "." + b; };
  if (!schema.empty() && configured == joined(schema, table)) return true;
  if (!database.empty() && configured == joined(database, table)) return true;
  return schema.empty() && database.empty() && configured == table;
}

std::vector<column_class> table_entry::key_classes() const {
  std::vector<column_class> out(key_columns.size(), column_class::unknown);
  for (size_t i = 0; i < key_columns.size(); ++i) {
    for (const column_info& c : columns) {
      if (c.name == key_columns[i]) out[i] = c.cls;
    }
  }
  return out;
}

table_entry* table_catalog::intern(const table_name& name) {
  std::lock_guard lock(_mutex);
  auto it = _index.find(name);
  if (it != _index.end()) return it->second;
  table_entry& e = _storage.emplace_back();
  e.name = name;
  for (const auto& [configured, columns] : _configured_keys) {
    if (name.matches(configured)) {
      e.key_columns = columns;
      e.key_configured = true;
      break;
    }
  }
  _index.emplace(name, &e);
  return &e;
}

void table_catalog::configure_key(const std::string& qualified,
                                  std::vector<std::string> key_columns) {
  std::lock_guard lock(_mutex);
  for (auto& [name, e] : _index) {
    if (name.matches(qualified)) {
      e->key_columns = key_columns;
      e->key_configured = true;
    }
  }
  _configured_keys[qualified] = std::move(key_columns);
}

std::vector<table_entry*> table_catalog::entries() {
  std::lock_guard lock(_mutex);
  std::vector<table_entry*> out;
  out.reserve(_index.size());
  for (auto& [_, e] : _index)
    out.push_back(e);
  return out;
}

bool table_catalog::resolve_key(table_entry& entry, std::string_view topic) {
  if (!entry.key_columns.empty()) return true;
  if (!_resolver) return false;
  entry.key_columns = _resolver(entry.name, topic);
  return !entry.key_columns.empty();
}

}  // namespace sluice
