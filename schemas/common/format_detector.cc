#include "schemas/common/format_detector.h"
#include "schemas/avro/avro_container.h"

#include <string>

#include "schemas/common/json_value_reader.h"

namespace sluice {
namespace {

using simdjson::ondemand::json_type;

constexpr size_t max_keys_kept = 32;

// What the top level shows, gathered in one pass.
struct shape {
  bool op_type = false;
  bool qual_table = false;
  bool json_schema = false;  // $schema
  bool specversion = false;
  bool source_metadata = false;
  bool payload = false;
  bool chunk_id = false;
  bool op = false;
  bool truncate = false;  // op is "t": Debezium's truncate carries no before nor after
  bool before_or_after = false;
  bool source = false;
  bool source_cluster = false;
  bool payload_op = false;
  bool payload_truncate = false;
  bool payload_before_or_after = false;
  bool payload_source = false;
  std::string_view type;  // the value of `type` when it is a string
};

// Calls visit(name, value) for each member of an object value.
template <typename Visit>
simdjson::error_code member_names(simdjson::ondemand::value v, Visit visit) {
  simdjson::ondemand::object object;
  if (auto code = v.get_object().get(object)) return code;
  for (auto member : object) {
    if (auto code = member.error()) return code;
    simdjson::ondemand::field& field = member.value_unsafe();
    std::string_view name;
    if (auto code = field.unescaped_key().get(name)) return code;
    simdjson::ondemand::value value = field.value();
    visit(name, value);
  }
  return simdjson::SUCCESS;
}

// Whether v is the string "t" (Debezium's truncate op).
bool is_truncate_op(simdjson::ondemand::value& v) {
  std::string_view op;
  return v.get_string().get(op) == simdjson::SUCCESS && op == "t";
}

bool is_object(simdjson::ondemand::value& v) {
  json_type type;
  return v.type().get(type) == simdjson::SUCCESS && type == json_type::object;
}

detected_format classify(const shape& s) {
  if (s.op_type || s.qual_table || s.json_schema || s.specversion) {
    return detected_format::goldengate;
  }
  if (s.source_metadata && s.payload) return detected_format::datastream;
  if (((s.type == "full" || s.type == "chunked") && s.source_cluster) ||
      (s.type == "fragment" && s.chunk_id)) {
    return detected_format::dsql;
  }
  if (s.op && (s.before_or_after || s.truncate) && s.source) return detected_format::debezium;
  if (s.payload && s.payload_op && (s.payload_before_or_after || s.payload_truncate) &&
      s.payload_source) {
    return detected_format::debezium;
  }
  return detected_format::unknown;
}

}  // namespace

const char* to_string(detected_format format) {
  switch (format) {
    case detected_format::datastream:
      return "datastream";
    case detected_format::goldengate:
      return "goldengate";
    case detected_format::dsql:
      return "dsql";
    case detected_format::debezium:
      return "debezium";
    case detected_format::confluent:
      return "confluent";
    case detected_format::unknown:
      break;
  }
  return "unknown";
}

result<detected_format> format_detector::detect(std::string_view message) {
  _keys.clear();
  if (message.size() > _max_message_bytes) {
    return make_error(error_code::too_large, "message of " + std::to_string(message.size()) +
                                                 " bytes exceeds " +
                                                 std::to_string(_max_message_bytes));
  }
  // Only Datastream sends Avro object containers (Debezium's Avro comes in Confluent's wire
  // format): its decoder reads the container.
  if (is_avro_container(message)) return detected_format::datastream;
  if (message.size() >= 5 && message.front() == '\0') return detected_format::confluent;
  const simdjson::padded_string_view padded = _buffer.assign(message);
  simdjson::ondemand::document doc;
  if (auto code = _parser.iterate(padded).get(doc)) return json_error(code);
  json_type root_type;
  if (auto code = doc.type().get(root_type)) return json_error(code);
  if (root_type != json_type::object) return detected_format::unknown;
  simdjson::ondemand::object root;
  if (auto code = doc.get_object().get(root)) return json_error(code);

  shape s;
  for (auto member : root) {
    if (auto code = member.error()) return json_error(code);
    simdjson::ondemand::field& field = member.value_unsafe();
    std::string_view key;
    if (auto code = field.unescaped_key().get(key)) return json_error(code);
    if (_keys.size() < max_keys_kept) _keys.push_back(key);
    simdjson::ondemand::value v = field.value();
    if (key == "op_type") {
      s.op_type = true;
    } else if (key == "qual_table") {
      s.qual_table = true;
    } else if (key == "$schema") {
      s.json_schema = true;
    } else if (key == "specversion") {
      s.specversion = true;
    } else if (key == "source_metadata") {
      s.source_metadata = true;
    } else if (key == "chunk_id") {
      s.chunk_id = true;
    } else if (key == "op") {
      s.op = true;
      s.truncate = is_truncate_op(v);
    } else if (key == "before" || key == "after") {
      s.before_or_after = true;
    } else if (key == "type") {
      json_type type;
      if (v.type().get(type) == simdjson::SUCCESS && type == json_type::string) {
        if (auto code = v.get_string().get(s.type)) return json_error(code);
      }
    } else if (key == "source") {
      s.source = true;
      if (is_object(v)) {
        auto code = member_names(v, [&](std::string_view name, simdjson::ondemand::value&) {
          if (name == "cluster") s.source_cluster = true;
        });
        if (code) return json_error(code);
      }
    } else if (key == "payload") {
      s.payload = true;
      if (is_object(v)) {
        auto code = member_names(v, [&](std::string_view name, simdjson::ondemand::value& value) {
          if (name == "op") {
            s.payload_op = true;
            s.payload_truncate = is_truncate_op(value);
          }
          if (name == "before" || name == "after") s.payload_before_or_after = true;
          if (name == "source") s.payload_source = true;
        });
        if (code) return json_error(code);
      }
    }
  }
  return classify(s);
}

}  // namespace sluice
