#include "connector/cli/topic_decoders.h"

#include "connector/runtime/stage_factory.h"

namespace sluice {

topic_decoders::topic_decoders(const config& c) : _config(c) {
  for (const auto& [source, table] : c.tables) {
    if (!table.primary_key_fields.empty()) _catalog.configure_key(source, table.primary_key_fields);
  }
}

decoder& topic_decoders::for_topic(std::string_view topic) {
  auto it = _decoders.find(topic);
  if (it == _decoders.end()) {
    it = _decoders.emplace(std::string(topic), make_decoder(_config, topic, _catalog)).first;
  }
  return *it->second;
}

}  // namespace sluice
