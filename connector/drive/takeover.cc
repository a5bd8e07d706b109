#include "connector/drive/takeover.h"

#include <chrono>
#include <set>
#include <stdexcept>
#include <thread>

#include "connector/base/log.h"
#include "connector/source/group_admin.h"

namespace sluice {
namespace {

constexpr auto k_ask_again = std::chrono::seconds(5);
constexpr auto k_admin_timeout = std::chrono::seconds(10);

}  // namespace

bool takeover::prepare(const std::vector<stored_offset>& ours, const std::atomic<bool>& stop) {
  if (_config.takeover_group.empty()) return true;
  for (;;) {
    std::string waiting;
    try {
      waiting = attempt(ours);
    } catch (const std::exception& e) {
      waiting = std::string("Kafka: ") + e.what();
    }
    if (waiting.empty()) break;
    _state.degrade("takeover", waiting);
    SLUICE_LOG(warn, "takeover", waiting << "; asking again in " << k_ask_again.count() << " s");
    const auto until = std::chrono::steady_clock::now() + k_ask_again;
    while (std::chrono::steady_clock::now() < until) {
      if (stop.load()) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  _state.degrade("takeover", "");
  return true;
}

std::string takeover::attempt(const std::vector<stored_offset>& ours) {
  group_admin admin(_config, k_admin_timeout);
  const std::vector<std::string> topics =
      _config.topics_regex.empty() ? _config.topics : admin.topics_matching(_config.topics_regex);
  std::set<topic_partition> have;
  for (const stored_offset& o : ours) {
    if (o.next) have.insert({o.topic, o.partition});
  }
  std::vector<topic_partition_key> wanted;
  for (const auto& [topic, partitions] : admin.partitions(topics)) {
    for (int32_t p : partitions) {
      if (!have.contains({topic, partition_id{p}})) wanted.emplace_back(topic, p);
    }
  }
  if (wanted.empty()) return "";  // taken over before: sluice's own offsets rule
  const std::string& group = _config.takeover_group;
  const group_admin::group_state g = admin.describe_group(group);
  if (g.members > 0) {
    return "group " + group + " has " + std::to_string(g.members) + " live member(s) (" + g.state +
           "): stop the connector to take over from its offsets";
  }
  _offsets.clear();
  for (const auto& [tp, offset] : admin.committed(group, wanted)) {
    if (!offset || *offset < 0) continue;  // none committed: kafka.auto.offset.reset says
    _offsets[{tp.first, partition_id{tp.second}}] = *offset;
    SLUICE_LOG(info, "takeover",
               tp.first << "[" << tp.second << "] starts at " << *offset << ", group " << group
                        << "'s committed offset");
  }
  if (_offsets.empty()) {
    // Most likely a misspelt group (Kafka describes any name as an empty group): said, not
    // refused, since a connector that never committed is a real case too.
    SLUICE_LOG(warn, "takeover",
               "group " << group << " has no committed offsets for the " << wanted.size()
                        << " partition(s) without offsets here: they start as "
                           "kafka.auto.offset.reset says (is the group's name right?)");
    return "";
  }
  SLUICE_LOG(info, "takeover",
             "group " << group << " is empty: " << _offsets.size() << " of " << wanted.size()
                      << " partition(s) without offsets here start from its committed offsets");
  return "";
}

std::optional<int64_t> takeover::start(const topic_partition& tp) const {
  if (auto it = _offsets.find(tp); it != _offsets.end()) return it->second;
  return std::nullopt;
}

}  // namespace sluice
