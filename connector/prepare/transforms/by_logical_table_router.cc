#include "connector/prepare/transforms/by_logical_table_router.h"

#include <algorithm>
#include <memory>
#include <stdexcept>

namespace sluice {
namespace {

regex_router compile(const std::string& who, std::string_view regex, std::string_view replacement) {
  auto router = regex_router::compile(regex, replacement);
  if (auto* why = std::get_if<std::string>(&router)) throw std::invalid_argument(who + *why);
  return std::get<regex_router>(std::move(router));
}

bool blank(const std::string& s) {
  return s.find_first_not_of(" \t") == std::string::npos;
}

}  // namespace

by_logical_table_router::by_logical_table_router(const std::string& name, const transform_config& t)
    : _who("transforms." + name),
      _topic(compile(_who + ".topic.", t.topic_regex, t.topic_replacement)),
      _key_field(shard_key_field(t.key_enforce_uniqueness, t.key_field_name)) {
  if (t.topic_regex.empty()) throw std::invalid_argument(_who + ".topic.regex is required");
  if (!blank(t.key_field_regex)) {
    if (blank(t.key_field_replacement)) {
      throw std::invalid_argument(_who +
                                  ".key.field.replacement must be non-empty if "
                                  "key.field.regex is set");
    }
    _key.emplace(compile(_who + ".key.field.", t.key_field_regex, t.key_field_replacement));
  }
}

std::optional<std::string> by_logical_table_router::renamed(std::string_view topic) const {
  std::optional<std::string> out = _topic.rename(topic);
  // An empty name: Debezium warns and passes the record as it came.
  if (out && out->empty()) out.reset();
  return out;
}

std::string by_logical_table_router::route(std::string_view topic) const {
  std::optional<std::string> out = renamed(topic);
  return out ? std::move(*out) : std::string(topic);
}

const std::optional<value>& by_logical_table_router::shard_of(std::string_view topic) {
  // Messages come in runs of one topic: the last answer first, then the map.
  if (_last != nullptr && _last->first == topic) return _last->second;
  auto it = _shards.find(topic);
  if (it == _shards.end()) {
    std::optional<value> shard;
    if (renamed(topic)) {
      std::optional<std::string> replaced = _key ? _key->rename(topic) : std::nullopt;
      shard = value::string(replaced ? *replaced : topic);
    }
    it = _shards.emplace(std::string(topic), std::move(shard)).first;
  }
  _last = &*it;
  return it->second;
}

std::optional<std::string> by_logical_table_router::add_to_key(row_key& key, const value& shard,
                                                               const change& c) const {
  if (std::find(key.columns.begin(), key.columns.end(), _key_field) != key.columns.end()) {
    return _who + ": the key of " +
           (c.table ? c.table->name.qualified() : std::string("the table")) + " already has " +
           _key_field + " (key.field.name): name the shard column otherwise";
  }
  key.columns.push_back(_key_field);
  key.values.push_back(shard);
  // The other values are canonical already and stay as they are; the shard is text.
  std::vector<column_class> classes(key.columns.size(), column_class::unknown);
  classes.back() = column_class::text;
  if (auto err = canonicalize_key(key, classes)) return _who + ": " + err->message;
  return std::nullopt;
}

shared_column_types by_logical_table_router::types_of(const shared_column_types& from) const {
  auto out = from ? std::make_shared<column_types>(*from) : std::make_shared<column_types>();
  std::erase_if(out->columns, [&](const column_types::column& t) { return t.name == _key_field; });
  column_type text;
  text.id = type_id::string;
  out->columns.push_back({_key_field, text, {}});
  return out;
}

std::variant<change_transform::outcome, std::string> by_logical_table_router::apply(
    change& c, const record_context& r) {
  if (_key_field.empty()) return outcome::keep;
  const std::optional<value>& shard = shard_of(r.topic);
  if (!shard) return outcome::keep;
  if (c.op == op_kind::truncate) {
    // The truncate's scope: the shard's rows, not the logical table's.
    c.key = {};
    c.key.columns.push_back(_key_field);
    c.key.values.push_back(*shard);
    if (auto err = canonicalize_key(c.key, {column_class::text})) return _who + ": " + err->message;
    return outcome::keep;
  }
  if (c.key.empty()) return outcome::keep;  // keyless: Debezium leaves a null key as it is
  if (auto why = add_to_key(c.key, *shard, c)) return std::move(*why);
  if (c.old_key && !c.old_key->empty()) {
    if (auto why = add_to_key(*c.old_key, *shard, c)) return std::move(*why);
  }
  if (c.op == op_kind::upsert) {
    // Written as a column, as the JDBC sinks write the key's fields.
    auto it = std::find_if(c.after.begin(), c.after.end(),
                           [&](const column_value& cv) { return cv.name == _key_field; });
    if (it == c.after.end()) {
      c.after.push_back({_key_field, *shard});
    } else {
      it->v = *shard;
    }
    c.types = _types.of(c.types, [&](const shared_column_types& from) { return types_of(from); });
  }
  return outcome::keep;
}

}  // namespace sluice
