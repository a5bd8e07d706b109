#include "connector/prepare/topic_decoders.h"

#include "connector/prepare/stage_factory.h"
#include "connector/registry/connector_schema_source.h"

namespace sluice {

topic_decoders::topic_decoders(const config& c)
    : _config(c), _own_catalog(std::make_unique<table_catalog>()), _catalog(*_own_catalog) {
  for (const auto& [source, table] : c.tables) {
    if (!table.primary_key_fields.empty()) _catalog.configure_key(source, table.primary_key_fields);
  }
  _registry = make_connector_schema_source(c, _state, _stop, /*persist=*/false);
}

topic_decoders::topic_decoders(const config& c, table_catalog& catalog)
    : _config(c), _catalog(catalog) {}

decoder& topic_decoders::for_topic(std::string_view topic) {
  auto it = _decoders.find(topic);
  if (it == _decoders.end()) {
    it = _decoders.emplace(std::string(topic), make_decoder(_config, topic, _catalog, _registry))
             .first;
  }
  return *it->second;
}

}  // namespace sluice
