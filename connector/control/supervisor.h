#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "connector/config/config.h"
#include "connector/http/connect_backend.h"
#include "connector/http/status_source.h"
#include "sinks/connector_control.h"

namespace sluice::sink {
class target;
}  // namespace sluice::sink

namespace sluice {

class pipeline;

// The member of a connector that `sluice run` is: one process, which outlives the pipelines
// it runs (Kafka Connect's worker, for one connector). It
//
//   - keeps a heartbeat in the connector's control state (member_agent.h) and reads there the
//     target state every member applies within seconds: RUNNING, PAUSED (the pipeline pauses
//     its partitions), STOPPED (the pipeline drains and is torn down: the member leaves the
//     consumer group, so that KIP-875's "offsets change only while the group is empty" can
//     hold, and stays up, answering HTTP, until RUNNING or PAUSED again);
//   - restarts in place when asked (by the REST API, here or through another member): the
//     pipeline torn down and a fresh one built from the configuration read again (`${file:}`
//     secrets included), with fresh librdkafka handles, sessions and metric families — one
//     "incarnation" replaces the other;
//   - answers for every member: the REST API's view lists each live member as a task.
//
// The HTTP server outlives the incarnations: it reads status, metrics and the control through
// this class. What an operator asks is applied here at once and written to the control state
// by the agent (waiting out an outage), so that a member cut off from the target still obeys
// the request sent to it.
//
// Lifecycle: construct → run() on the main thread until the process stops. Threading: run()
// on one thread; status(), state(), metrics_text() and the connect_backend calls from any
// (the HTTP threads); the agent's callbacks on its thread.
class supervisor final : public status_source, public connect_backend {
 public:
  // Reads the configuration file again: the configuration, or why it does not load.
  using config_loader = std::function<std::variant<config, std::string>()>;
  struct identity {
    std::string worker_id;  // host:pid
    std::string version;
    std::string commit;
  };

  supervisor(config first, config_loader reload, identity id);
  ~supervisor() override;
  supervisor(const supervisor&) = delete;
  supervisor& operator=(const supervisor&) = delete;

  // Runs incarnations until process_stop (then the pipeline drains and the member leaves).
  // pipeline_stop is what the running pipeline watches: set by the signal handler with
  // process_stop, and here to stop or restart. Returns the exit code of the last pipeline.
  int run(const std::atomic<bool>& process_stop, std::atomic<bool>& pipeline_stop);

  // GET /metrics: the current incarnation's registry ("" between two).
  std::string metrics_text() const;

  // status_source: this member's pipeline, and every live member.
  connector_status status() const override;
  connector_state state() const override;

  // connect_backend
  connect_view view() const override;
  void set_target(sink::target_state s) override;
  void restart(bool only_failed) override;
  bool restart_task(int id) override;
  std::pair<std::vector<connect_offset>, connect_answer> offsets() override;
  connect_answer alter_offsets(const std::vector<connect_offset>& offsets) override;
  connect_answer reset_offsets() override;

 private:
  struct incarnation;

  void wait_for_restart(std::unique_lock<std::mutex>& lock, const std::atomic<bool>& process_stop);
  void start_incarnation(config c);
  void end_incarnation(bool leaving);
  int drive(const std::atomic<bool>& process_stop, std::atomic<bool>& pipeline_stop);
  // The agent's callbacks (its thread).
  sink::member_heartbeat me() const;
  void write_pending(sink::connector_control& control);
  void on_view(const sink::control_view& v);

  // Under _mutex:
  connector_state local_state() const;
  std::string local_trace() const;
  void restart_here(const std::string& why);
  void apply_target();
  std::vector<sink::member_record> live_members() const;
  std::vector<connect_task> tasks() const;
  // Offsets may move: the target is STOPPED and no member holds a partition any more
  // (waits a while for the members to get there); otherwise the answer to give.
  // cfg, target: the incarnation's, for the change that follows.
  std::optional<connect_answer> refuse_offset_change(std::unique_lock<std::mutex>& lock,
                                                     std::shared_ptr<const config>& cfg,
                                                     std::shared_ptr<const sink::target>& target);
  connect_answer change_offsets(const std::vector<connect_offset>& offsets, bool all);

  const config_loader _reload;
  const identity _id;
  std::string _name;  // the connector's (the first configuration's)

  mutable std::mutex _mutex;
  std::condition_variable _cv;
  std::unique_ptr<incarnation> _inc;
  std::atomic<bool>* _pipeline_stop = nullptr;
  const std::atomic<bool>* _process_stop = nullptr;
  std::optional<config> _first;
  connector_state _idle_state = connector_state::starting;  // while no pipeline runs
  std::string _idle_reason;
  // The control state as last read, and what this member made of it.
  std::optional<sink::control_view> _view;
  std::chrono::steady_clock::time_point _view_at;
  sink::target_state _target = sink::target_state::running;
  bool _target_known = false;
  std::optional<int64_t> _seen_restart_epoch, _seen_member_epoch;
  int64_t _own_restart_epoch = -1;    // the restart request this member wrote last
  bool _started_once = false;         // a pipeline was built (main thread only)
  std::vector<std::string> _secrets;  // the current configuration's, for the idle reason
  bool _restart = false;              // this member restarts (the incarnation ends)
  // Requests taken here, for the agent to write.
  std::optional<sink::target_state> _pending_target;
  std::optional<bool> _pending_restart;  // only_failed
  std::vector<std::string> _pending_member_restarts;
  std::string _cluster_id;  // asked once (the agent's thread)
  std::chrono::steady_clock::time_point _cluster_id_next{};
};

}  // namespace sluice
