#include "connector/cli/commands.h"

#include <librdkafka/rdkafka.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <iostream>
#include <optional>
#include <string>

#include "connector/base/log.h"
#include "connector/check/kafka_check.h"
#include "connector/check/postgres_check.h"
#include "connector/check/registry_check.h"
#include "connector/cli/cli_options.h"
#include "connector/config/config_reference.h"
#include "connector/config/redact.h"
#include "connector/drive/pipeline.h"
#include "connector/http/http_server.h"
#include "connector/metrics/metrics_registry.h"
#include "connector/source/kafka_consumer.h"
#include "connector/source/kafka_log.h"
#include "sinks/session_error.h"

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

int check_command(const std::string& config_path) {
  auto c = load_command_config(config_path, "check");
  if (!c) return 2;
  std::cout << "# effective configuration\n" << describe(*c) << "\n";
  // A person waits for check: each service gets a few seconds, once, and nothing is created,
  // migrated or retried (issue 15).
  constexpr std::chrono::milliseconds timeout{5000};
  check_report report;
  check_kafka(*c, report, timeout);
  check_postgres(*c, report, timeout);
  check_registry(*c, report, timeout);
  report.print(std::cout);
  const int code = report.exit_code();
  std::cout << "\n" << (code == 0 ? "check passed" : "check failed") << " (exit " << code << ")\n";
  return code;
}

int config_reference_command() {
  std::cout << config_reference_markdown();
  return 0;
}

}  // namespace sluice
