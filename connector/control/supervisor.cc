#include "connector/control/supervisor.h"

#include <algorithm>
#include <exception>
#include <map>
#include <set>
#include <thread>

#include "connector/base/log.h"
#include "connector/base/sink_options.h"
#include "connector/base/target_names.h"
#include "connector/config/redact.h"
#include "connector/control/connect_config.h"
#include "connector/control/member_agent.h"
#include "connector/control/supervisor_incarnation.h"
#include "connector/drive/pipeline.h"
#include "connector/metrics/control_probe.h"
#include "connector/metrics/metrics_registry.h"
#include "connector/source/group_admin.h"

namespace sluice {
namespace {

using namespace std::chrono_literals;

constexpr auto k_heartbeat = 1s;
// How long a member waits for the control state before it starts a pipeline anyway.
constexpr auto k_first_view_wait = 3s;

// A member's state as Connect names a task's.
std::string connect_state(std::string_view member_state) {
  if (member_state == "RUNNING" || member_state == "DEGRADED" || member_state == "DRAINING")
    return "RUNNING";
  if (member_state == "PAUSED" || member_state == "FAILED") return std::string(member_state);
  return "UNASSIGNED";  // STARTING, or STOPPED (between two pipelines)
}

}  // namespace

supervisor::supervisor(config first, config_loader reload, identity id)
    : _reload(std::move(reload)), _id(std::move(id)), _name(first.name), _first(std::move(first)) {}

supervisor::~supervisor() {
  if (_inc) end_incarnation(true);
}

// --- the main thread -----------------------------------------------------------------------

int supervisor::run(const std::atomic<bool>& process_stop, std::atomic<bool>& pipeline_stop) {
  {
    std::lock_guard lock(_mutex);
    _pipeline_stop = &pipeline_stop;
    _process_stop = &process_stop;
  }
  int code = 0;
  while (!process_stop.load()) {
    std::optional<config> next;
    {
      std::lock_guard lock(_mutex);
      next.swap(_first);
    }
    if (!next) {
      std::variant<config, std::string> loaded = _reload();
      if (const auto* why = std::get_if<std::string>(&loaded)) {
        SLUICE_LOG(error, "control", "restart: the configuration does not load: " << *why);
        std::unique_lock lock(_mutex);
        _idle_state = connector_state::failed;
        _idle_reason = "configuration: " + *why;
        wait_for_restart(lock, process_stop);
        _restart = false;
        _idle_state = connector_state::starting;
        _idle_reason.clear();
        code = 1;
        continue;
      }
      next = std::move(std::get<config>(loaded));
    }
    try {
      start_incarnation(std::move(*next));
      code = drive(process_stop, pipeline_stop);
    } catch (const std::exception& e) {
      // The first start's errors end the process as they always did (a configuration the
      // target or librdkafka refuses: exit 2); after a restart, FAILED until restarted again.
      if (!_started_once) {
        end_incarnation(true);
        throw;
      }
      SLUICE_LOG(error, "control", "cannot start: " << e.what());
      std::unique_lock lock(_mutex);
      _idle_state = connector_state::failed;
      _idle_reason = redact_secrets(e.what(), _secrets);
      wait_for_restart(lock, process_stop);
      code = 1;
    }
    const bool leaving = process_stop.load();
    end_incarnation(leaving);
    std::lock_guard lock(_mutex);
    _restart = false;
    _idle_state = connector_state::starting;
    _idle_reason.clear();
    if (!leaving) SLUICE_LOG(info, "control", "restarting: the configuration is read again");
  }
  return code;
}

void supervisor::wait_for_restart(std::unique_lock<std::mutex>& lock,
                                  const std::atomic<bool>& process_stop) {
  // Polled: the signal handler only sets process_stop, it cannot notify.
  while (!_restart && !process_stop.load())
    _cv.wait_for(lock, 100ms);
}

void supervisor::start_incarnation(config c) {
  if (c.name != _name) {
    // The control rows and offsets are keyed by the name: a renamed connector is another one.
    throw std::invalid_argument("the configuration now names connector '" + c.name + "', not '" +
                                _name + "': start a new process for it");
  }
  {
    std::lock_guard lock(_mutex);
    _secrets = c.secrets;
  }
  auto inc = std::make_unique<incarnation>();
  inc->cfg = std::make_shared<const config>(std::move(c));
  inc->connect_config = connect_config(*inc->cfg);
  inc->metrics = std::make_unique<metrics_registry>(target_of(*inc->cfg));
  inc->probe = std::make_unique<control_probe>(*inc->metrics);
  inc->target = make_target(*inc->cfg);
  member_agent::callbacks cb;
  cb.me = [this] { return me(); };
  cb.write = [this](sink::connector_control& control) { write_pending(control); };
  cb.seen = [this](const sink::control_view& v) { on_view(v); };
  inc->agent = std::make_unique<member_agent>(*inc->target, make_retry_policy(*inc->cfg),
                                              inc->cfg->name, k_heartbeat, std::move(cb));
  member_agent* agent = inc->agent.get();
  {
    std::lock_guard lock(_mutex);
    _inc = std::move(inc);
  }
  agent->start();
}

void supervisor::end_incarnation(bool leaving) {
  // Only this thread replaces _inc: it may read it without the lock. The agent calls back
  // into this class (under the lock): it is stopped, without the lock, before the incarnation
  // is let go.
  if (!_inc) return;
  _inc->agent->stop(leaving);
  std::unique_ptr<incarnation> done;
  {
    std::lock_guard lock(_mutex);
    done = std::move(_inc);
  }
  done.reset();  // the pipeline is gone already (drive()); then the registry, the target
}

int supervisor::drive(const std::atomic<bool>& process_stop, std::atomic<bool>& pipeline_stop) {
  int code = 0;
  // The target state first: a member does not join the group of a STOPPED connector. When
  // the control state does not answer soon (the target away, a refused login), the pipeline
  // starts anyway and shows why (DEGRADED, FAILED); it stops as soon as STOPPED is read.
  const auto unknown_until = std::chrono::steady_clock::now() + k_first_view_wait;
  for (;;) {
    std::unique_lock lock(_mutex);
    _cv.wait_for(lock, 100ms, [&] {
      return _restart || process_stop.load() ||
             (_target_known && _target != sink::target_state::stopped);
    });
    if (_restart || process_stop.load()) return code;
    if (!_target_known && std::chrono::steady_clock::now() < unknown_until) continue;
    if (_target == sink::target_state::stopped) {
      _idle_state = connector_state::stopped;
      continue;
    }
    lock.unlock();
    pipeline_stop.store(false);
    auto p = std::make_unique<pipeline>(*_inc->cfg, *_inc->metrics);
    _started_once = true;
    pipeline* running = p.get();
    lock.lock();
    _inc->pipe = std::move(p);
    // A stop, a restart or a STOPPED target that came meanwhile.
    if (process_stop.load() || _restart) pipeline_stop.store(true);
    apply_target();
    lock.unlock();
    code = running->run(pipeline_stop);
    lock.lock();
    std::unique_ptr<pipeline> done = std::move(_inc->pipe);
    _idle_state = code == 0 ? connector_state::stopped : connector_state::failed;
    _idle_reason = code == 0 ? "" : redact_secrets(done->status().last_error, _inc->cfg->secrets);
    lock.unlock();
    done.reset();
    if (code == 0 && !process_stop.load()) SLUICE_LOG(info, "control", "pipeline stopped");
  }
}

// --- the agent's thread --------------------------------------------------------------------

sink::member_heartbeat supervisor::me() const {
  std::lock_guard lock(_mutex);
  sink::member_heartbeat m;
  m.worker_id = _id.worker_id;
  m.state = to_string(local_state());
  m.trace = local_trace();
  if (_inc && _inc->pipe) {
    std::set<std::string> topics;
    for (const partition_status& p : _inc->pipe->status().assigned)
      topics.insert(p.topic);
    m.topics.assign(topics.begin(), topics.end());
  }
  return m;
}

void supervisor::write_pending(sink::connector_control& control) {
  std::shared_ptr<const config> cfg;
  {
    std::lock_guard lock(_mutex);
    const auto now = std::chrono::steady_clock::now();
    if (_cluster_id.empty() && _inc && now >= _cluster_id_next) {
      cfg = _inc->cfg;
      _cluster_id_next = now + 30s;  // Kafka away: not a new client every heartbeat
    }
  }
  if (cfg) {  // GET / names the cluster: asked here, off the HTTP threads, once it answers
    try {
      std::string id = group_admin(*cfg, std::chrono::milliseconds(2000)).cluster_id();
      std::lock_guard lock(_mutex);
      _cluster_id = std::move(id);
    } catch (const std::exception& e) {
      SLUICE_LOG(debug, "control", "cluster id: " << e.what());
    }
  }
  std::optional<sink::target_state> target;
  std::optional<bool> restart;
  std::vector<std::string> members;
  {
    std::lock_guard lock(_mutex);
    target.swap(_pending_target);
    restart.swap(_pending_restart);
    members.swap(_pending_member_restarts);
  }
  const auto put_back = [&] {
    std::lock_guard lock(_mutex);
    if (target && !_pending_target) _pending_target = target;
    if (restart && !_pending_restart) _pending_restart = restart;
    _pending_member_restarts.insert(_pending_member_restarts.end(), members.begin(), members.end());
  };
  // A request not written (stopping, or an error the agent logs and retries) is kept for the
  // next heartbeat: answered 202 here, it must reach the others, and must not be undone by
  // the control state read meanwhile.
  try {
    if (target) {
      if (!control.set_target(*target, _id.worker_id)) return put_back();
      SLUICE_LOG(info, "control", "target state " << sink::to_string(*target) << " written");
      target.reset();
    }
    if (restart) {
      const auto epoch = control.request_restart(*restart);
      if (!epoch) return put_back();
      std::lock_guard lock(_mutex);
      // This member restarted when the request came: it does not restart for it again.
      _own_restart_epoch = *epoch;
      restart.reset();
    }
    while (!members.empty()) {
      if (!control.request_member_restart(members.back())) return put_back();
      members.pop_back();
    }
  } catch (...) {
    put_back();
    throw;
  }
}

void supervisor::on_view(const sink::control_view& v) {
  std::lock_guard lock(_mutex);
  _view = v;
  _view_at = std::chrono::steady_clock::now();
  // A request taken here and not written yet outranks what the control state still says.
  if (!_pending_target) _target = v.target;
  _target_known = true;
  if (!_seen_restart_epoch) {
    _seen_restart_epoch = v.restart_epoch;
  } else if (v.restart_epoch > *_seen_restart_epoch) {
    // Only its own request since the last read: this member restarted when it came. Several
    // requests at once: the column keeps the latest one's onlyFailed, so any of them may have
    // been a full one.
    const bool own =
        v.restart_epoch == _own_restart_epoch && v.restart_epoch == *_seen_restart_epoch + 1;
    const bool several = v.restart_epoch > *_seen_restart_epoch + 1;
    _seen_restart_epoch = v.restart_epoch;
    if (!own && (several || !v.restart_only_failed || local_state() == connector_state::failed))
      restart_here("a restart of every member was requested");
  }
  for (const sink::member_record& m : v.members) {
    if (m.heartbeat.worker_id != _id.worker_id) continue;
    if (!_seen_member_epoch) {
      _seen_member_epoch = m.restart_epoch;
    } else if (m.restart_epoch != *_seen_member_epoch) {  // != : a row forgotten and made anew
      _seen_member_epoch = m.restart_epoch;
      restart_here("a restart of this member was requested");
    }
  }
  apply_target();
  if (_inc) _inc->probe->observe(v, std::chrono::milliseconds(member_agent::live_within).count());
  _cv.notify_all();
}

// --- under _mutex --------------------------------------------------------------------------

connector_state supervisor::local_state() const {
  return _inc && _inc->pipe ? _inc->pipe->state() : _idle_state;
}

std::string supervisor::local_trace() const {
  if (!_inc || !_inc->pipe) return _idle_reason;
  const connector_status s = _inc->pipe->status();
  return s.state == connector_state::failed ? s.last_error : s.degraded_reason;
}

void supervisor::restart_here(const std::string& why) {
  if (_restart) return;
  SLUICE_LOG(info, "control", why << ": restarting this member");
  _restart = true;
  if (_pipeline_stop != nullptr) _pipeline_stop->store(true);
  _cv.notify_all();
}

void supervisor::apply_target() {
  if (!_inc || !_inc->pipe) return;  // drive() starts one unless STOPPED
  switch (_target) {
    case sink::target_state::stopped:
      if (_pipeline_stop != nullptr) _pipeline_stop->store(true);
      break;
    // Only when the pipeline disagrees: a leftover resume flag would undo the next pause.
    case sink::target_state::paused: {
      const connector_state s = _inc->pipe->state();
      if (s == connector_state::running || s == connector_state::degraded ||
          s == connector_state::starting)
        _inc->pipe->request_pause();
      break;
    }
    case sink::target_state::running:
      if (_inc->pipe->state() == connector_state::paused) _inc->pipe->request_resume();
      break;
  }
}

std::vector<sink::member_record> supervisor::live_members() const {
  std::vector<sink::member_record> out;
  if (!_view) return out;
  const int64_t since_read = std::chrono::duration_cast<std::chrono::milliseconds>(
                                 std::chrono::steady_clock::now() - _view_at)
                                 .count();
  for (const sink::member_record& m : _view->members) {
    if (m.age_ms + since_read < std::chrono::milliseconds(member_agent::live_within).count())
      out.push_back(m);
  }
  return out;
}

std::vector<connect_task> supervisor::tasks() const {
  std::vector<connect_task> out;
  // The others as their heartbeats said, aged by the time since the view was read (a view
  // that cannot be refreshed lets them go); this member as it is now.
  for (const sink::member_record& m : live_members()) {
    if (m.heartbeat.worker_id == _id.worker_id) continue;
    connect_task& t = out.emplace_back();
    t.worker_id = m.heartbeat.worker_id;
    t.state = connect_state(m.heartbeat.state);
    t.trace =
        m.heartbeat.state == "DEGRADED" ? "DEGRADED: " + m.heartbeat.trace : m.heartbeat.trace;
  }
  connect_task& self = out.emplace_back();
  self.worker_id = _id.worker_id;
  const std::string state = to_string(local_state());
  self.state = connect_state(state);
  self.trace = state == "DEGRADED" ? "DEGRADED: " + local_trace() : local_trace();
  std::sort(out.begin(), out.end(),
            [](const connect_task& a, const connect_task& b) { return a.worker_id < b.worker_id; });
  for (size_t i = 0; i < out.size(); ++i)
    out[i].id = static_cast<int>(i);
  return out;
}

// --- the HTTP threads ----------------------------------------------------------------------

std::string supervisor::metrics_text() const {
  std::lock_guard lock(_mutex);
  return _inc ? _inc->metrics->serialize() : std::string();
}

connector_state supervisor::state() const {
  std::lock_guard lock(_mutex);
  return local_state();
}

connector_status supervisor::status() const {
  std::lock_guard lock(_mutex);
  connector_status s;
  if (_inc && _inc->pipe) {
    s = _inc->pipe->status();
  } else {
    s.name = _name;
    s.state = _idle_state;
    s.last_error = _idle_reason;
  }
  // The native status keeps sluice's own states (DEGRADED among them); this member's reason
  // is in last_error and degraded already.
  for (const sink::member_record& m : live_members()) {
    if (m.heartbeat.worker_id != _id.worker_id)
      s.members.push_back({m.heartbeat.worker_id, m.heartbeat.state, m.heartbeat.trace});
  }
  s.members.push_back({_id.worker_id, to_string(s.state), ""});
  std::sort(s.members.begin(), s.members.end(), [](const member_status& a, const member_status& b) {
    return a.worker_id < b.worker_id;
  });
  return s;
}

connect_view supervisor::view() const {
  std::lock_guard lock(_mutex);
  connect_view v;
  v.name = _name;
  v.worker_id = _id.worker_id;
  v.version = _id.version;
  v.commit = _id.commit;
  v.kafka_cluster_id = _cluster_id;
  if (_inc) v.config = _inc->connect_config;
  switch (_target) {
    case sink::target_state::stopped:
      v.state = "STOPPED";  // Connect lists no task for a stopped connector
      return v;
    case sink::target_state::paused:
      v.state = "PAUSED";
      break;
    case sink::target_state::running:
      v.state = "RUNNING";
      break;
  }
  v.tasks = tasks();
  std::set<std::string> topics;
  for (const sink::member_record& m : live_members())
    topics.insert(m.heartbeat.topics.begin(), m.heartbeat.topics.end());
  v.topics.assign(topics.begin(), topics.end());
  return v;
}

void supervisor::set_target(sink::target_state s) {
  std::lock_guard lock(_mutex);
  SLUICE_LOG(info, "control", "target state " << sink::to_string(s) << " requested");
  _target = s;
  _pending_target = s;
  apply_target();
  _cv.notify_all();
  if (_inc) _inc->agent->wake();
}

void supervisor::restart(bool only_failed) {
  std::lock_guard lock(_mutex);
  if (!only_failed || local_state() == connector_state::failed)
    restart_here("a restart was requested here");
  _pending_restart = _pending_restart ? (*_pending_restart && only_failed) : only_failed;
  if (_inc) _inc->agent->wake();
}

bool supervisor::restart_task(int id) {
  std::lock_guard lock(_mutex);
  const std::vector<connect_task> now = tasks();
  if (id < 0 || static_cast<size_t>(id) >= now.size()) return false;
  const std::string& worker = now[static_cast<size_t>(id)].worker_id;
  if (worker == _id.worker_id) {
    restart_here("a restart of this task was requested");
  } else {
    _pending_member_restarts.push_back(worker);
    if (_inc) _inc->agent->wake();
  }
  return true;
}

}  // namespace sluice
