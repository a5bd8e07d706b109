#include "connector/cli/commands.h"

#include <signal.h>

#include <atomic>
#include <string>

#include "connector/base/log.h"
#include "connector/cli/cli_options.h"
#include "connector/drive/pipeline.h"
#include "connector/http/http_server.h"
#include "connector/metrics/metrics_registry.h"

// `sluice run`: the connector, until SIGTERM or SIGINT drains it.
namespace sluice {
namespace {

std::atomic<bool> g_stop{false};

extern "C" void on_stop_signal(int) {
  g_stop.store(true);
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
    // Declaration order is destruction order: the server stops before the pipeline and the
    // registry it reads.
    metrics_registry metrics;
    pipeline p(*c, metrics);
    http_server http(
        c->metrics.listen, metrics, p,
        {[&p] { p.request_pause(); }, [&p] { p.request_resume(); }, c->http.auth_token});
    http.start();
    if (http.running()) {
      SLUICE_LOG(info, "sluice", "metrics and status on http://" << http.listening_address());
    }
    const int code = p.run(g_stop);
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
