// KIP-875 through Connect's REST API: the connector's offsets read, moved and cleared, only
// while every member has stopped and left the consumer group (supervisor.h).
#include <map>

#include "connector/base/log.h"
#include "connector/config/redact.h"
#include "connector/control/supervisor.h"
#include "connector/control/supervisor_incarnation.h"
#include "connector/source/group_admin.h"

namespace sluice {
namespace {

using namespace std::chrono_literals;

// How long a PATCH or DELETE of the offsets waits for every member to have left the group.
constexpr auto k_offsets_wait = 15s;

}  // namespace

std::pair<std::vector<connect_offset>, connect_answer> supervisor::offsets() {
  std::shared_ptr<const config> cfg;
  std::shared_ptr<const sink::target> target;
  {
    std::lock_guard lock(_mutex);
    if (!_inc) return {{}, {503, "the connector is restarting: try again"}};
    cfg = _inc->cfg;
    target = _inc->target;
  }
  try {
    const auto session = target->open("rest offsets", retry_policy::bounded());
    std::vector<connect_offset> out;
    for (const stored_offset& o : session->make_reader(cfg->name)->read_offsets()) {
      if (o.next) out.push_back({o.topic, o.partition.value(), o.next->value()});
    }
    return {std::move(out), {200, ""}};
  } catch (const std::exception& e) {
    return {
        {},
        {500, redact_secrets(std::string("cannot read the offsets: ") + e.what(), cfg->secrets)}};
  }
}

std::optional<connect_answer> supervisor::refuse_offset_change(
    std::unique_lock<std::mutex>& lock, std::shared_ptr<const config>& cfg,
    std::shared_ptr<const sink::target>& target) {
  if (_target != sink::target_state::stopped) {
    return connect_answer{
        400,
        "Connectors must be in the STOPPED state before their offsets can be modified. "
        "This can be done for the specified connector by issuing a 'PUT' request to the "
        "'/connectors/" +
            _name + "/stop' endpoint"};
  }
  const connect_answer restarting{503, "the connector is restarting: try again"};
  if (!_inc) return restarting;
  // Held here: the incarnation may end while the lock is let go below.
  cfg = _inc->cfg;
  target = _inc->target;
  const std::string group = cfg->kafka_property("group.id").value_or(cfg->name);
  // Every member must have drained and left the group: the ones this member sees, and the
  // group itself (a member the control state has not heard from yet).
  const auto deadline = std::chrono::steady_clock::now() + k_offsets_wait;
  std::string why;
  for (;;) {
    why.clear();
    if (!_inc || (_process_stop != nullptr && _process_stop->load())) return restarting;
    if (_target != sink::target_state::stopped) why = "the connector was resumed meanwhile";
    for (const connect_task& t : tasks())
      if (why.empty() && t.state != "UNASSIGNED")
        why = "member " + t.worker_id + " is still " + t.state;
    if (why.empty() && local_state() != connector_state::stopped) why = "this member is stopping";
    if (why.empty()) {
      lock.unlock();
      try {
        const auto g = group_admin(*cfg, std::chrono::milliseconds(3000)).describe_group(group);
        if (g.members > 0)
          why = "the consumer group " + group + " still has " + std::to_string(g.members) +
                " member(s)";
      } catch (const std::exception& e) {
        why = std::string("Kafka cannot say whether the group is empty: ") + e.what();
      }
      lock.lock();
      if (!_inc) return restarting;
      if (why.empty()) return std::nullopt;
    }
    if (std::chrono::steady_clock::now() >= deadline) break;
    _cv.wait_for(lock, 500ms);
  }
  return connect_answer{409, "the offsets cannot change yet: " + why +
                                 " (retry once every member "
                                 "has stopped)"};
}

connect_answer supervisor::change_offsets(const std::vector<connect_offset>& offsets, bool all) {
  std::unique_lock lock(_mutex);
  std::shared_ptr<const config> cfg;
  std::shared_ptr<const sink::target> target;
  if (auto refused = refuse_offset_change(lock, cfg, target)) return *refused;
  lock.unlock();
  std::vector<offset_target> moved;
  std::vector<offset_key> cleared;
  std::map<topic_partition_key, int64_t> group_copy;
  for (const connect_offset& o : offsets) {
    if (o.offset) {
      moved.push_back({o.topic, partition_id(o.partition), kafka_offset(*o.offset)});
      group_copy[{o.topic, o.partition}] = *o.offset;
    } else {
      cleared.push_back({o.topic, partition_id(o.partition)});
    }
  }
  try {
    const auto session = target->open("rest offsets", retry_policy::bounded());
    const auto admin = session->make_offset_admin(cfg->name);
    // The epochs are bumped as by `sluice offsets reset`: a zombie cannot write past this.
    if (all) {
      admin->clear({});
    } else {
      if (!moved.empty()) admin->reset(moved);
      if (!cleared.empty()) admin->clear(cleared);
    }
  } catch (const std::exception& e) {
    return {500,
            redact_secrets(std::string("cannot write the offsets: ") + e.what(), cfg->secrets)};
  }
  // The group's copy follows, as after `sluice offsets reset` (sluice reads its own).
  if (!group_copy.empty()) {
    try {
      group_admin(*cfg, std::chrono::milliseconds(5000))
          .alter_committed(cfg->kafka_property("group.id").value_or(cfg->name), group_copy);
    } catch (const std::exception& e) {
      SLUICE_LOG(warn, "control", "the group's copy of the offsets was not updated: " << e.what());
    }
  }
  SLUICE_LOG(info, "control",
             (all ? std::string("offsets reset")
                  : "offsets altered: " + std::to_string(moved.size()) + " moved, " +
                        std::to_string(cleared.size()) + " cleared")
                 << " (REST API)");
  return {200, all ? "The offsets for this connector have been reset successfully"
                   : "The offsets for this connector have been altered successfully"};
}

connect_answer supervisor::alter_offsets(const std::vector<connect_offset>& offsets) {
  return change_offsets(offsets, false);
}

connect_answer supervisor::reset_offsets() {
  return change_offsets({}, true);
}

}  // namespace sluice
