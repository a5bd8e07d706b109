#include "connector/prepare/transforms/field_selection.h"

#include "core/catalog/table_catalog.h"

namespace sluice {
namespace {

bool any_rule(const field_rules& f) {
  return !f.include.empty() || !f.exclude.empty() || !f.rename.empty();
}

// A global entry: `field` for every topic, `topic:field` for one (Kafka topic names cannot
// hold a ':').
void add_entries(const std::vector<std::string>& entries, std::string_view topic,
                 column_rules::name_set& into) {
  for (const std::string& e : entries) {
    const size_t colon = e.find(':');
    if (colon == std::string::npos) {
      into.insert(e);
    } else if (std::string_view(e).substr(0, colon) == topic) {
      into.insert(e.substr(colon + 1));
    }
  }
}

}  // namespace

field_selection::field_selection(const config& c) : _config(c) {
  _empty = !any_rule(c.fields);
  for (const auto& [name, table] : c.tables)
    _empty = _empty && !any_rule(table.fields);
}

column_rules field_selection::compile(const table_name& table, std::string_view topic) const {
  column_rules::name_set include, exclude;
  column_rules::rename_map rename;
  add_entries(_config.fields.include, topic, include);
  add_entries(_config.fields.exclude, topic, exclude);
  for (const auto& [from, to] : _config.fields.rename)
    rename[from] = to;
  for (const auto& [name, t] : _config.tables) {
    if (!table.matches(name)) continue;
    include.insert(t.fields.include.begin(), t.fields.include.end());
    exclude.insert(t.fields.exclude.begin(), t.fields.exclude.end());
    for (const auto& [from, to] : t.fields.rename)
      rename[from] = to;  // the table's win
  }
  return column_rules(std::move(include), std::move(exclude), std::move(rename), "field rules");
}

column_rules& field_selection::rules_for(const table_entry& table, std::string_view topic) {
  auto& by_topic = _rules[&table];
  for (const auto& [t, r] : by_topic) {
    if (t == topic) return *r;
  }
  by_topic.emplace_back(std::string(topic),
                        std::make_unique<column_rules>(compile(table.name, topic)));
  return *by_topic.back().second;
}

std::string field_selection::source_name(const table_name& table, std::string_view topic,
                                         const std::string& name) const {
  if (_empty) return name;
  return compile(table, topic).source_name(name);  // asked once per table: not cached
}

std::optional<std::string> field_selection::apply(change& c, std::string_view topic) {
  if (_empty || c.table == nullptr) return std::nullopt;
  return rules_for(*c.table, topic).apply(c);
}

}  // namespace sluice
