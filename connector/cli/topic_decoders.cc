#include "connector/cli/topic_decoders.h"

#include "connector/registry/connector_schema_source.h"
#include "connector/runtime/stage_factory.h"

namespace sluice {

topic_decoders::topic_decoders(const config& c)
    : _config(c), _registry(make_connector_schema_source(c, _state, _stop, /*persist=*/false)) {
  for (const auto& [source, table] : c.tables) {
    if (!table.primary_key_fields.empty()) _catalog.configure_key(source, table.primary_key_fields);
  }
}

decoder& topic_decoders::for_topic(std::string_view topic) {
  auto it = _decoders.find(topic);
  if (it == _decoders.end()) {
    it = _decoders.emplace(std::string(topic), make_decoder(_config, topic, _catalog, _registry))
             .first;
  }
  return *it->second;
}

}  // namespace sluice
