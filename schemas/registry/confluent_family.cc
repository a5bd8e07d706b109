#include "schemas/registry/confluent_family.h"

#include <string>

#include "schemas/common/json_value_reader.h"

namespace sluice {

detected_format avro_schema_family(const avro_node& root) {
  if (root.kind != avro_kind::record) return detected_format::unknown;
  bool op = false, source = false, image = false, datastream = false;
  for (const avro_node::field& f : root.fields) {
    if (f.name == "op") op = true;
    if (f.name == "source") source = true;
    if (f.name == "before" || f.name == "after") image = true;
    if (f.name == "source_metadata" || f.name == "payload") datastream = true;
  }
  if (datastream) return detected_format::datastream;
  if (op && (source || image)) return detected_format::debezium;
  return detected_format::unknown;
}

result<detected_format> confluent_family_finder::family(const raw_message& msg) {
  if (!msg.value) return detected_format::unknown;
  auto frame = parse_confluent_frame(*msg.value);
  if (!frame) return frame.err();
  const int32_t id = frame->id.value();
  if (auto it = _known.find(id); it != _known.end()) return it->second;
  auto schema = _registry->schema(frame->id);
  if (!schema) return schema.err();
  const std::string where = "schema id " + std::to_string(id);
  if ((*schema)->type != "AVRO") {
    return make_error(error_code::unsupported, where + " is a " + (*schema)->type.substr(0, 16) +
                                                   " schema; sluice reads Avro only");
  }
  auto info = avro_schema_info::parse((*schema)->text, _max_depth);
  if (!info) return in_context(where, info.err());
  const detected_format f = avro_schema_family((*info)->root());
  if (_known.size() >= 1024) _known.clear();  // a topic uses a handful of ids
  _known.emplace(id, f);
  return f;
}

}  // namespace sluice
