#include "connector/control/member_agent.h"

#include <exception>

#include "connector/base/log.h"

namespace sluice {

member_agent::member_agent(const sink::target& target, retry_policy policy, std::string connector,
                           std::chrono::milliseconds period, callbacks cb)
    : _target(target),
      _policy(policy),
      _connector(std::move(connector)),
      _period(period),
      _cb(std::move(cb)) {}

member_agent::~member_agent() {
  stop();
}

void member_agent::start() {
  if (_thread.joinable()) return;
  _session = _target.open("control", _policy);
  _control = _session->make_control(_connector, [this] {
    std::lock_guard lock(_mutex);
    return !_stopping;
  });
  _thread = std::thread([this] { loop(); });
}

void member_agent::stop(bool leave) {
  {
    std::lock_guard lock(_mutex);
    if (_stopping && !_thread.joinable()) return;
    _stopping = true;
  }
  _cv.notify_all();
  if (_thread.joinable()) _thread.join();
  if (leave && _session && _healthy.load()) {
    // A fresh control that gives up at once: a member leaving during an outage is forgotten
    // by the others instead (forget_after).
    try {
      const auto bounded = std::chrono::steady_clock::now() + std::chrono::seconds(3);
      _session
          ->make_control(_connector,
                         [bounded] { return std::chrono::steady_clock::now() < bounded; })
          ->leave(_cb.me().worker_id);
    } catch (const std::exception& e) {
      SLUICE_LOG(debug, "control", "leaving: " << e.what());
    }
  }
  _control.reset();
  _session.reset();
}

void member_agent::wake() {
  {
    std::lock_guard lock(_mutex);
    _woken = true;
  }
  _cv.notify_all();
}

void member_agent::loop() {
  std::string last_error;
  for (;;) {
    {
      std::lock_guard lock(_mutex);
      if (_stopping) return;
      _woken = false;
    }
    try {
      if (_cb.write) _cb.write(*_control);
      const auto view = _control->heartbeat(_cb.me(), forget_after);
      if (view && _cb.seen) _cb.seen(*view);
      _healthy = view.has_value();  // nothing: given up because stopping
      last_error.clear();
    } catch (const std::exception& e) {
      // Not transient (the policy gave up, a refused login): tried again next period, said
      // once (the pipeline, which meets the same error, shows it in its state).
      _healthy = false;
      if (last_error != e.what()) SLUICE_LOG(warn, "control", "heartbeat failed: " << e.what());
      last_error = e.what();
    }
    std::unique_lock lock(_mutex);
    _cv.wait_for(lock, _period, [this] { return _stopping || _woken; });
  }
}

}  // namespace sluice
