#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "connector/config/config.h"
#include "connector/prepare/transforms/change_transform.h"
#include "connector/prepare/transforms/derived_types.h"
#include "connector/prepare/transforms/regex_router.h"

namespace sluice {

// Debezium's ByLogicalTableRouter (io.debezium.transforms.ByLogicalTableRouter): the shards of
// a logical table (db1.public.orders, db2.public.orders ...) renamed onto one topic, so that
// ${topic} in table.name.format routes them to one target, their rows kept apart by a key
// column that names the shard (SPEC §6a "Transforms"). For a topic topic.regex matches whole
// and topic.replacement does not leave empty (any other passes untouched, as Debezium):
//
//   route(t):   topic.replacement                                   (the chain caches it)
//   apply(c):   with key.enforce.uniqueness (the default), the shard is key.field.regex's
//               replacement of the topic as it came where it matches, else that topic;
//               a keyed change:  key (and old key) += key.field.name = shard, canonical;
//                                an upsert's row gets the column too, typed string
//               a truncate:      key = key.field.name = shard alone: the truncate's scope,
//                                so that the sink removes that shard's rows only
//               a keyless change passes as it is (Debezium leaves a null key null)
//
// A change whose key already has key.field.name is a dead letter (Debezium fails on the
// duplicate field). schema.name.adjustment.mode and logical.table.cache.size do nothing here.
//
// Lifecycle: built once from the configuration, owned by the chain, which runs route() and
// apply() on the topic as the routers before it left it. Threading: one thread (the types).
class by_logical_table_router final : public change_transform {
 public:
  // Throws std::invalid_argument for what the loader would have refused.
  by_logical_table_router(const std::string& name, const transform_config& t);

  // The logical topic of `topic`; the topic itself where the transform leaves it.
  std::string route(std::string_view topic) const;
  std::variant<outcome, std::string> apply(change& c, const record_context& r) override;

  // The key column it adds; "" when key.enforce.uniqueness is false.
  const std::string& shard_column() const { return _key_field; }

 private:
  std::optional<std::string> renamed(std::string_view topic) const;
  // The shard value of a topic as it came, nothing where the transform leaves it; cached.
  const std::optional<value>& shard_of(std::string_view topic);
  std::optional<std::string> add_to_key(row_key& key, const value& shard, const change& c) const;
  shared_column_types types_of(const shared_column_types& from) const;

  std::string _who;
  regex_router _topic;
  std::optional<regex_router> _key;  // key.field.regex and its replacement, if given
  std::string _key_field;            // "" when key.enforce.uniqueness is false
  derived_types _types;
  std::map<std::string, std::optional<value>, std::less<>> _shards;  // by topic as it came
  const std::pair<const std::string, std::optional<value>>* _last = nullptr;
};

}  // namespace sluice
