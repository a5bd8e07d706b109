#include "connector/prepare/target_key_lookup.h"

#include "connector/base/log.h"

namespace sluice {

target_key_lookup::target_key_lookup(const sink::target& target, retry_policy policy,
                                     routing_options routing, session_observer* observer,
                                     keep_going go, std::string role,
                                     std::chrono::milliseconds retry_after)
    : _router(std::move(routing)),
      _retry_after(retry_after),
      _go(std::move(go)),
      _session(target.open(std::move(role), policy, observer)),
      _reader(_session->make_key_reader()) {}

target_key_lookup::~target_key_lookup() = default;

void target_key_lookup::prepare_as(const config& c) {
  _topics = std::make_unique<transform_chain>(c);
  _fields = std::make_unique<field_selection>(c);
}

std::vector<std::string> target_key_lookup::operator()(const table_name& source,
                                                       std::string_view topic) {
  const std::string_view routed = _topics ? _topics->topic(topic) : topic;
  auto target = _router.route(source, routed);
  if (!target) return {};  // the apply stage reports the routing error
  const auto now = std::chrono::steady_clock::now();
  auto it = _answers.find(*target);
  if (it != _answers.end() && (!it->second.key.empty() || now - it->second.asked < _retry_after)) {
    return source_names(it->second.key, source, routed);
  }
  std::vector<std::string> key;
  try {
    auto answer = _reader->primary_key(*target, _go);
    if (!answer) return {};  // given up: not an answer, so not remembered
    key = std::move(*answer);
  } catch (const std::exception& e) {
    // Unknown, not keyless: the change is refused with the missing-key reason and the
    // lookup is tried again later.
    SLUICE_LOG(warn, "catalog",
               "cannot read the primary key of " << target->schema << "." << target->name << ": "
                                                 << e.what());
  }
  if (!key.empty()) {
    SLUICE_LOG(info, "catalog",
               "key of " << source.qualified() << " from the primary key of " << target->schema
                         << "." << target->name);
  }
  _answers[*target] = {key, now};
  return source_names(std::move(key), source, routed);
}

std::vector<std::string> target_key_lookup::source_names(std::vector<std::string> key,
                                                         const table_name& source,
                                                         std::string_view topic) const {
  if (!_fields) return key;
  for (std::string& column : key)
    column = _topics->source_name(_fields->source_name(source, topic, column));
  return key;
}

}  // namespace sluice
