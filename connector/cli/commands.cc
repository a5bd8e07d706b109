#include "connector/cli/commands.h"

#include <librdkafka/rdkafka.h>
#include <signal.h>

#include <atomic>
#include <iostream>
#include <optional>
#include <string>

#include "connector/cli/change_json.h"
#include "connector/config/config_loader.h"
#include "connector/config/config_reference.h"
#include "connector/config/redact.h"
#include "connector/pipeline.h"
#include "connector/runtime/log.h"
#include "connector/runtime/stage_factory.h"
#include "sinks/postgres/pg_applier.h"

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

// The value following a flag (-c FILE, --config FILE, --config=FILE).
std::optional<std::string> flag_value(const arguments& args, std::string_view short_name,
                                      std::string_view long_name) {
  for (size_t i = 0; i < args.size(); ++i) {
    if ((args[i] == short_name || args[i] == long_name) && i + 1 < args.size()) {
      return std::string(args[i + 1]);
    }
    const std::string prefix = std::string(long_name) + "=";
    if (args[i].starts_with(prefix)) return std::string(args[i].substr(prefix.size()));
  }
  return std::nullopt;
}

bool has_flag(const arguments& args, std::string_view name) {
  for (auto a : args) {
    if (a == name) return true;
  }
  return false;
}

// Loads and reports the configuration; nullopt (after printing every error) when invalid.
std::optional<config> load(const arguments& args, std::string_view command) {
  auto path = flag_value(args, "-c", "--config");
  if (!path) {
    std::cerr << "sluice " << command << ": missing -c|--config FILE\n";
    return std::nullopt;
  }
  load_result r = load_config_file(*path);
  if (!r.ok()) {
    std::cerr << "sluice: invalid configuration (" << r.errors().size() << " error"
              << (r.errors().size() == 1 ? "" : "s") << "):\n"
              << r.error_text();
    return std::nullopt;
  }
  config c = std::move(r.value());
  const log_severity severity = c.log.level == log_level::debug   ? log_severity::debug
                                : c.log.level == log_level::warn  ? log_severity::warn
                                : c.log.level == log_level::error ? log_severity::error
                                                                  : log_severity::info;
  log::configure(severity, c.log.format == log_format::json);
  return c;
}

// A metadata round trip to the brokers; the error text, or nothing when they answered.
std::optional<std::string> probe_kafka(const config& c) {
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  for (const auto& [k, v] : c.kafka) {
    if (k == "group.id" || k == "auto.offset.reset") continue;
    if (rd_kafka_conf_set(conf, k.c_str(), v.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK) {
      rd_kafka_conf_destroy(conf);
      return "kafka." + k + ": " + err;
    }
  }
  kafka_handle rk(rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err));
  if (!rk) {
    rd_kafka_conf_destroy(conf);
    return std::string(err);
  }
  const rd_kafka_metadata_t* md = nullptr;
  const auto e = rd_kafka_metadata(rk.get(), 1, nullptr, &md, 10000);
  if (e != RD_KAFKA_RESP_ERR_NO_ERROR) return std::string(rd_kafka_err2str(e));
  rd_kafka_metadata_destroy(md);
  return std::nullopt;
}

}  // namespace

const char* version() {
  return "0.1.0";
}

int run_command(const arguments& args) {
  auto c = load(args, "run");
  if (!c) return 2;
  install_signal_handlers();
  try {
    pipeline p(*c);
    return p.run(g_stop);
  } catch (const std::invalid_argument& e) {
    SLUICE_LOG(error, "sluice", "configuration: " << e.what());
    return 2;
  } catch (const std::exception& e) {
    SLUICE_LOG(error, "sluice", "failed to start: " << e.what());
    return 1;
  }
}

int check_command(const arguments& args) {
  auto c = load(args, "check");
  if (!c) return 2;
  std::cout << "# effective configuration\n" << describe(*c) << "\n";
  int code = 0;
  if (auto err = probe_kafka(*c)) {
    std::cout << "kafka: UNREACHABLE: " << *err << "\n";
    code = 3;
  } else {
    std::cout << "kafka: ok\n";
  }
  try {
    pg_applier applier(c->postgres.dsn, make_applier_options(*c));
    applier.start();
    std::cout << "postgres: ok (" << redact(c->postgres.dsn) << ", state schema "
              << c->postgres.state_schema << ")\n";
  } catch (const std::exception& e) {
    std::cout << "postgres: UNREACHABLE: " << redact(e.what()) << "\n";
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
            << " rows, apply into " << redact(c->postgres.dsn) << "\n";
  return code;
}

int decode_command(const arguments& args) {
  std::optional<config> c;
  if (flag_value(args, "-c", "--config")) {
    c = load(args, "decode");
    if (!c) return 2;
  } else {
    c = config_with_defaults();
    c->name = "decode";
  }
  if (auto f = flag_value(args, "-f", "--format")) {
    bool known = false;
    for (size_t i = 0; i < message_format_names.size(); ++i) {
      if (message_format_names[i] == *f) {
        c->format = static_cast<message_format>(i);
        known = true;
      }
    }
    if (!known) {
      std::cerr << "sluice decode: unknown format '" << *f << "'\n";
      return 2;
    }
  }
  if (has_flag(args, "--kafka-json")) {
    std::cerr << "sluice decode: --kafka-json is not supported yet\n";
    return 2;
  }
  table_catalog catalog;
  for (const auto& [source, table] : c->tables) {
    if (!table.primary_key_fields.empty()) catalog.configure_key(source, table.primary_key_fields);
  }
  std::unique_ptr<decoder> dec;
  try {
    dec = make_decoder(*c, "stdin", catalog);
  } catch (const std::exception& e) {
    std::cerr << "sluice decode: " << e.what() << "\n";
    return 2;
  }
  std::string line, out;
  decode_output decoded;
  int64_t offset = 0;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    raw_message m;
    m.topic = "stdin";
    m.offset = kafka_offset{offset++};
    m.value = line;
    decoded.clear();
    if (auto err = dec->decode(m, decoded)) {
      std::cerr << "offset " << m.offset.value() << ": " << to_string(err->code) << ": "
                << err->message << "\n";
      continue;
    }
    for (const change& ch : decoded.changes) {
      out.clear();
      append_change_json(out, ch);
      out.push_back('\n');
      std::cout << out;
    }
  }
  return 0;
}

int config_reference_command(const arguments&) {
  std::cout << config_reference_markdown();
  return 0;
}

}  // namespace sluice
