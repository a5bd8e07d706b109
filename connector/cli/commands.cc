#include "connector/cli/commands.h"

#include <librdkafka/rdkafka.h>
#include <signal.h>

#include <atomic>
#include <iostream>
#include <optional>
#include <string>

#include "connector/cli/cli_options.h"
#include "connector/config/config_reference.h"
#include "connector/config/redact.h"
#include "connector/http/http_server.h"
#include "connector/kafka/kafka_consumer.h"
#include "connector/kafka/kafka_log.h"
#include "connector/metrics/metrics_registry.h"
#include "connector/pipeline.h"
#include "connector/runtime/log.h"
#include "connector/runtime/stage_factory.h"
#include "sinks/postgres/session/pg_session.h"

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

// librdkafka's error callback for probe_kafka(): keeps the first TLS or SASL refusal.
void keep_refusal(rd_kafka_t*, int err, const char* reason, void* opaque) {
  auto* refused = static_cast<std::string*>(opaque);
  if (is_refusal(static_cast<rd_kafka_resp_err_t>(err)) && refused->empty() && reason) {
    *refused = reason;
  }
}

// A metadata round trip to the brokers; the error text, or nothing when they answered.
std::optional<std::string> probe_kafka(const config& c) {
  char err[512];
  std::string refused;  // before the handle that writes it, destroyed after it
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set_error_cb(conf, &keep_refusal);
  rd_kafka_conf_set_opaque(conf, &refused);
  for (const auto& [k, v] : c.kafka) {
    if (k == "group.id" || k == "auto.offset.reset") continue;
    if (rd_kafka_conf_set(conf, k.c_str(), v.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK) {
      rd_kafka_conf_destroy(conf);
      return "kafka." + k + ": " + err;
    }
  }
  route_kafka_logs(conf);
  kafka_handle rk(rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err));
  if (!rk) {
    rd_kafka_conf_destroy(conf);
    return std::string(err);
  }
  const rd_kafka_metadata_t* md = nullptr;
  const auto e = rd_kafka_metadata(rk.get(), 1, nullptr, &md, 10000);
  if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
    // "Broker transport failure" says little: the error callback knows why, if TLS or SASL
    // refused the connection.
    rd_kafka_poll(rk.get(), 0);
    return refused.empty() ? std::string(rd_kafka_err2str(e)) : refused;
  }
  rd_kafka_metadata_destroy(md);
  return std::nullopt;
}

}  // namespace

const char* version() {
  return "0.1.0";
}

int run_command(const arguments& args) {
  // First, so that a SIGTERM arriving during start-up drains instead of killing.
  install_signal_handlers();
  auto c = load_command_config(args, "run");
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

int check_command(const arguments& args) {
  auto c = load_command_config(args, "check");
  if (!c) return 2;
  // What check prints besides describe(): errors and the DSN, with the secrets redacted.
  const auto shown = [&](std::string_view text) {
    return redact_secrets(redact(text), c->secrets);
  };
  std::cout << "# effective configuration\n" << describe(*c) << "\n";
  int code = 0;
  if (auto err = probe_kafka(*c)) {
    std::cout << "kafka: UNREACHABLE: " << shown(*err) << "\n";
    code = 3;
  } else {
    std::cout << "kafka: ok\n";
  }
  try {
    // A person waits for check: a short, bounded retry policy, never a hang.
    pg_session session(make_session_options(*c), retry_policy::bounded(), "check");
    session.run([](pqxx::connection&) { return true; });
    std::cout << "postgres: ok (" << shown(c->postgres.dsn) << ", state schema "
              << c->postgres.state_schema << ")\n";
  } catch (const std::exception& e) {
    std::cout << "postgres: UNREACHABLE: " << shown(e.what()) << "\n";
    code = 3;
  }
  std::cout << "plan: consume " << (c->topics_regex.empty() ? "topics" : "topics matching") << " ";
  if (c->topics_regex.empty()) {
    for (size_t i = 0; i < c->topics.size(); ++i)
      std::cout << (i ? ", " : "") << c->topics[i];
  } else {
    std::cout << c->topics_regex;
  }
  std::cout << " as " << to_string(c->format) << ", batches of " << c->batch.size
            << " rows, apply into " << shown(c->postgres.dsn) << "\n";
  return code;
}

int config_reference_command(const arguments&) {
  std::cout << config_reference_markdown();
  return 0;
}

}  // namespace sluice
