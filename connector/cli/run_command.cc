#include "connector/cli/commands.h"

#include <signal.h>

#include <atomic>
#include <string>
#include <variant>

#include "connector/base/log.h"
#include "connector/base/worker_id.h"
#include "connector/cli/build_info.h"
#include "connector/cli/cli_options.h"
#include "connector/config/config_loader.h"
#include "connector/control/supervisor.h"
#include "connector/http/http_server.h"

// `sluice run`: the connector, until SIGTERM or SIGINT drains it.
namespace sluice {
namespace {

std::atomic<bool> g_stop{false};
// What the running pipeline watches: also set by the supervisor to stop or restart it.
std::atomic<bool> g_pipeline_stop{false};

extern "C" void on_stop_signal(int) {
  g_stop.store(true);
  g_pipeline_stop.store(true);
}

// The configuration file read again for a restart, `${file:}` secrets and all.
std::variant<config, std::string> reload(const std::string& path) {
  load_result r = load_config_file(path);
  if (!r.ok()) return r.error_text();
  config c = std::move(r.value());
  log::hide(c.secrets);
  return c;
}

void install_signal_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
}

}  // namespace

int run_command(const std::string& config_path) {
  // First, so that a SIGTERM arriving during start-up drains instead of killing.
  install_signal_handlers();
  auto c = load_command_config(config_path, "run");
  if (!c) return 2;
  try {
    // Declaration order is destruction order: the server stops before the supervisor it reads.
    const std::string listen = c->metrics.listen;
    const std::string token = c->http.auth_token;
    supervisor member(std::move(*c), [config_path] { return reload(config_path); },
                      {local_worker_id(), version_number(), commit_id()});
    http_controls controls;
    controls.pause = [&member] { member.set_target(sink::target_state::paused); };
    controls.resume = [&member] { member.set_target(sink::target_state::running); };
    controls.bearer_token = token;
    controls.connect = &member;
    http_server http(
        listen, [&member] { return member.metrics_text(); }, member, std::move(controls));
    http.start();
    if (http.running()) {
      SLUICE_LOG(info, "sluice",
                 "metrics, status and Connect's REST API on http://" << http.listening_address());
    }
    const int code = member.run(g_stop, g_pipeline_stop);
    http.stop();
    return code;
  } catch (const std::invalid_argument& e) {
    SLUICE_LOG(error, "sluice", "configuration: " << e.what());
    return 2;
  } catch (const http_server_error& e) {
    SLUICE_LOG(error, "sluice", e.what());
    return 2;
  } catch (const std::exception& e) {
    SLUICE_LOG(error, "sluice", "failed to start: " << e.what());
    return 1;
  }
}

}  // namespace sluice
