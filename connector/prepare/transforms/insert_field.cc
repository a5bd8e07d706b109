#include "connector/prepare/transforms/insert_field.h"

#include <algorithm>
#include <memory>
#include <stdexcept>

#include "schemas/debezium/connect_logical_types.h"

namespace sluice {

// As Connect types them: the topic and the static value strings, the partition an int32, the
// offset an int64, the timestamp a Timestamp (milliseconds, written in UTC without a zone, as
// the JDBC sinks write it).
column_type insert_field::type_of(source from) {
  column_type t;
  switch (from) {
    case source::partition:
      t.id = type_id::int32;
      break;
    case source::offset:
      t.id = type_id::int64;
      break;
    case source::timestamp:
      t.id = type_id::timestamp;
      t.precision = 3;
      break;
    case source::topic:
    case source::constant:
      t.id = type_id::string;
      break;
  }
  return t;
}

insert_field::insert_field(const std::string& name, const transform_config& t)
    : _who("transforms." + name), _static_value(t.static_value) {
  const std::pair<const std::string*, source> given[] = {
      {&t.topic_field, source::topic},     {&t.partition_field, source::partition},
      {&t.offset_field, source::offset},   {&t.timestamp_field, source::timestamp},
      {&t.static_field, source::constant},
  };
  for (const auto& [field, from] : given) {
    if (field->empty()) continue;
    column c{*field, from};
    // Connect's suffixes: `!` required, `?` optional (the default).
    if (c.name.back() == '!' || c.name.back() == '?') {
      c.required = c.name.back() == '!';
      c.name.pop_back();
    }
    if (c.name.empty()) throw std::invalid_argument(_who + ": a field name is empty");
    for (const column& other : _columns) {
      if (other.name == c.name)
        throw std::invalid_argument(_who + ": two fields insert the column " + c.name);
    }
    _columns.push_back(std::move(c));
  }
}

shared_column_types insert_field::types_of(const shared_column_types& from) const {
  auto out = from ? std::make_shared<column_types>(*from) : std::make_shared<column_types>();
  for (const column& c : _columns) {
    std::erase_if(out->columns, [&](const column_types::column& t) { return t.name == c.name; });
    out->columns.push_back({c.name, type_of(c.from), {}});
  }
  return out;
}

std::variant<change_transform::outcome, std::string> insert_field::apply(change& c,
                                                                         const record_context& r) {
  if (c.op != op_kind::upsert || _columns.empty()) return outcome::keep;
  for (const column& col : _columns) {
    if (std::find(c.key.columns.begin(), c.key.columns.end(), col.name) != c.key.columns.end()) {
      return _who + ": " + col.name + " is a key column of " +
             (c.table ? c.table->name.qualified() : std::string("the table")) +
             ": InsertField cannot overwrite it";
    }
    value v;
    const message_origin& o = c.source.origin;
    switch (col.from) {
      case source::topic:
        v = value::string(r.topic);
        break;
      case source::partition:
        v = value::number(std::to_string(o.partition.value()));
        break;
      case source::offset:
        v = value::number(std::to_string(o.offset.value()));
        break;
      case source::timestamp:
        if (o.timestamp.value() == 0) {
          if (col.required)
            return _who + ": the message has no Kafka timestamp, and " + col.name +
                   "! requires one";
          v = value::null();
        } else {
          v = {value_kind::string, timestamp_text(o.timestamp.value(), 1'000'000'000)};
        }
        break;
      case source::constant:
        v = value::string(_static_value);
        break;
    }
    auto it = std::find_if(c.after.begin(), c.after.end(),
                           [&](const column_value& cv) { return cv.name == col.name; });
    if (it == c.after.end()) {
      c.after.push_back({col.name, std::move(v)});
    } else {
      it->v = std::move(v);
    }
  }
  c.types = _types.of(c.types, [&](const shared_column_types& from) { return types_of(from); });
  return outcome::keep;
}

}  // namespace sluice
