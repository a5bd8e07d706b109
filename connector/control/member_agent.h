#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "sinks/connector_control.h"
#include "sinks/retry_policy.h"
#include "sinks/target.h"

namespace sluice {

// One member's link to the connector's shared control state (sinks/connector_control.h): on
// its own thread and session, every `period` it writes the member's heartbeat and reads the
// target state, the restart requests and every member, and hands what it read on. What the
// member must write (an operator's request) is written first, on the same thread, so that the
// read that follows already sees it.
//
// While the target is unreachable the heartbeat waits it out (nothing is handed on); stop()
// ends the wait. A member stopping for good takes its row away (leave()).
//
// Lifecycle: construct (no I/O) → start() → stop() (or the destructor). Threading: the
// callbacks run on the agent's thread; start/stop/wake from one other thread.
class member_agent {
 public:
  struct callbacks {
    std::function<sink::member_heartbeat()> me;  // this member, now
    // Before each heartbeat: write what is pending through the control.
    std::function<void(sink::connector_control&)> write;
    std::function<void(const sink::control_view&)> seen;  // each heartbeat's answer
  };
  member_agent(const sink::target& target, retry_policy policy, std::string connector,
               std::chrono::milliseconds period, callbacks cb);
  ~member_agent();
  member_agent(const member_agent&) = delete;
  member_agent& operator=(const member_agent&) = delete;

  void start();
  // Ends the thread; leave: take this member's heartbeat away (best effort, bounded; not
  // when the last heartbeat failed: the others forget a silent member anyway).
  void stop(bool leave = false);
  // Beat now rather than at the end of the period (a request is pending).
  void wake();

  // A member silent for this long is not live; for 15 minutes, it is forgotten.
  static constexpr std::chrono::seconds live_within{10};
  static constexpr std::chrono::seconds forget_after{15 * 60};

 private:
  void loop();

  const sink::target& _target;
  const retry_policy _policy;
  const std::string _connector;
  const std::chrono::milliseconds _period;
  const callbacks _cb;
  std::mutex _mutex;
  std::condition_variable _cv;
  bool _stopping = false;
  bool _woken = false;
  std::atomic<bool> _healthy{false};  // the last heartbeat was answered
  std::thread _thread;
  std::unique_ptr<sink::target_session> _session;  // the agent thread's
  std::unique_ptr<sink::connector_control> _control;
};

}  // namespace sluice
