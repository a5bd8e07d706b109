// The prepare stage's cost with Kafka Connect's transforms (issue 30), on one thread: the same
// messages through `preparer` (connector/prepare/preparer.h: add(message, lane), take() every
// --batch messages, as the Kafka driver closes batches) under two configurations:
//
//   none    no transform
//   chain   a typical chain: RegexRouter (<p>.public.<t> -> <p>.replica.<t>), ReplaceField
//           (exclude note and email, rename amount to total), Filter under HasHeaderKey
//           (the ~10% of messages carrying the header sluice.skip are dropped), InsertField
//           (static.field origin)
//
//   build/integration/prepare_bench [--events N] [--repeat N] [--passes N] [--batch N]
//                                   [--skip-every N] [--only none] [--tsv]
//
// The messages: N Debezium changes as JsonConverter writes them with schemas (e2e_workloads'
// `debezium`: 11 columns, transactions of inserts, updates and deletes, tombstones), N
// Datastream JSON events (`datastream`: 10 columns) and the committed Debezium fixtures
// (tests/fixtures/debezium/*.jsonl, their own topics), each on its topic <source>.public.<t>,
// every message with a `trace` header, one in --skip-every (default 10) also with
// sluice.skip. A pass feeds them --repeat times (default 5). Each pass is timed for both
// configurations, alternating, in the thread's CPU time (the machine is shared: time spent
// descheduled is not prepare's). Printed: messages/s and ns/message of the best and the median
// pass of each, the ratio chain / none (best / best, median / median), what each configuration
// kept (rows after the merge), and the load average before and after (how quiet the machine
// was). integration/bench/run_prepare_bench.sh runs it several times. --only none times the
// first configuration alone: the same program built on a tree from before the transforms
// (81eafe5~1) says whether prepare without transforms is unchanged.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "connector/config/config_loader.h"
#include "connector/prepare/preparer.h"
#include "integration/bench/e2e_workloads.h"

namespace {

using namespace sluice;
using sluice::testing::bench_message;

// Seconds of CPU time this thread has used.
double thread_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

struct options {
  size_t events = 4000;
  int repeat = 5;
  int passes = 7;
  size_t batch = 10'000;
  size_t skip_every = 10;
  bool only_none = false;
  bool tsv = false;
};

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto next = [&]() -> long {
      if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
      return std::atol(argv[++i]);
    };
    if (a == "--events") {
      o.events = static_cast<size_t>(next());
    } else if (a == "--repeat") {
      o.repeat = static_cast<int>(next());
    } else if (a == "--passes") {
      o.passes = static_cast<int>(next());
    } else if (a == "--batch") {
      o.batch = static_cast<size_t>(next());
    } else if (a == "--skip-every") {
      o.skip_every = static_cast<size_t>(next());
    } else if (a == "--only" && i + 1 < argc && std::string(argv[i + 1]) == "none") {
      o.only_none = true;
      ++i;
    } else if (a == "--tsv") {
      o.tsv = true;
    } else {
      throw std::invalid_argument("unknown argument " + a);
    }
  }
  if (o.events == 0 || o.repeat < 1 || o.passes < 1 || o.batch == 0 || o.skip_every == 0)
    throw std::invalid_argument("--events, --repeat, --passes, --batch, --skip-every: >= 1");
  return o;
}

const char* const base_config = R"yaml(name: prepare-bench
kafka: {bootstrap.servers: 127.0.0.1:9092}
topics: [dbz.public.orders, ds.public.orders, fx.public.all_types, fx.public.uuid_pk,
         fx.public.bytea_pk]
postgres: {dsn: postgresql://sluice@127.0.0.1:5432/replica}
errors.tolerance: all
topic.overrides:
  dbz.public.orders: {format: debezium}
  ds.public.orders: {format: datastream}
  fx.public.all_types: {format: debezium}
  fx.public.uuid_pk: {format: debezium}
  fx.public.bytea_pk: {format: debezium}
)yaml";

const char* const chain_config = R"yaml(transforms:
  route:
    type: org.apache.kafka.connect.transforms.RegexRouter
    regex: "([^.]+)\\.public\\.(.+)"
    replacement: "$1.replica.$2"
  fields:
    type: org.apache.kafka.connect.transforms.ReplaceField$Value
    exclude: [note, email]
    renames: ["amount:total"]
  skip:
    type: org.apache.kafka.connect.transforms.Filter
    predicate: marked
  insert:
    type: org.apache.kafka.connect.transforms.InsertField$Value
    static.field: origin
    static.value: prepare-bench
predicates:
  marked: {type: org.apache.kafka.connect.transforms.predicates.HasHeaderKey, name: sluice.skip}
)yaml";

config load(const std::string& text) {
  load_result r = load_config(text, [](std::string_view) { return std::optional<std::string>(); });
  if (!r.ok()) throw std::runtime_error("config: " + r.error_text());
  return r.value();
}

// One configuration's preparer, its config and decoders outliving it.
struct stage {
  explicit stage(const std::string& yaml)
      : cfg(load(yaml)), decoders(cfg), prepare(cfg, decoders, 1) {}
  config cfg;
  topic_decoders decoders;
  preparer prepare;
};

// The messages of a pass, each a view into `bytes` (which never moves: a deque-like list).
struct corpus {
  std::vector<std::unique_ptr<std::string>> bytes;
  std::vector<source_message> messages;

  std::string_view keep(std::string s) {
    bytes.push_back(std::make_unique<std::string>(std::move(s)));
    return *bytes.back();
  }
  void add(std::string_view topic, const bench_message& m) {
    source_message s;
    s.raw.topic = topic;
    s.raw.partition = partition_id{0};
    s.raw.offset = kafka_offset{static_cast<int64_t>(messages.size())};
    s.raw.key = keep(m.key);
    if (m.value) s.raw.value = keep(*m.value);
    s.timestamp_ms = 1767225600000 + static_cast<int64_t>(messages.size());
    messages.push_back(std::move(s));
  }
};

std::string source_dir() {
  if (const char* s = std::getenv("SLUICE_SOURCE_DIR")) return s;
  return SLUICE_SOURCE_DIR;  // the tree this was built from
}

// default_<table>.jsonl: {"key":K,"value":V} a line (jdbc_sink_scenario.cc reads them alike).
std::vector<bench_message> fixture_messages(const std::string& table) {
  const std::string path = source_dir() + "/tests/fixtures/debezium/default_" + table + ".jsonl";
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::vector<bench_message> out;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    const std::string head = "{\"key\":";
    const size_t split = line.find(",\"value\":");
    if (!line.starts_with(head) || split == std::string::npos)
      throw std::runtime_error("not a fixture line in " + path);
    bench_message m;
    m.key = line.substr(head.size(), split - head.size());
    const std::string value = line.substr(split + 9, line.size() - 1 - (split + 9));
    if (value != "null") m.value = value;
    out.push_back(std::move(m));
  }
  return out;
}

corpus build_corpus(const options& o) {
  corpus c;
  std::vector<std::pair<std::string, std::vector<bench_message>>> sources;
  for (const auto& [topic, format] :
       {std::pair{"dbz.public.orders", "debezium"}, std::pair{"ds.public.orders", "datastream"}}) {
    auto w = sluice::testing::make_workload(format, "orders", o.events, 7, false);
    std::vector<bench_message> messages;
    std::string copy;
    for (size_t i = 0; i < o.events; ++i) {
      copy.clear();
      w->next(messages, copy, static_cast<int64_t>(i));
    }
    sources.emplace_back(topic, std::move(messages));
  }
  for (const std::string table : {"all_types", "uuid_pk", "bytea_pk"})
    sources.emplace_back("fx.public." + table, fixture_messages(table));
  for (const auto& [topic, messages] : sources) {
    const std::string_view t = c.keep(topic);
    for (const bench_message& m : messages)
      c.add(t, m);
  }
  // Interleaved as a consumer of several partitions hands them over: round robin, 64 at a time.
  // (Each source's own order is kept.)
  std::vector<source_message> mixed;
  std::vector<size_t> at(sources.size(), 0), first(sources.size(), 0);
  for (size_t s = 1; s < sources.size(); ++s)
    first[s] = first[s - 1] + sources[s - 1].second.size();
  while (mixed.size() < c.messages.size()) {
    for (size_t s = 0; s < sources.size(); ++s) {
      for (int k = 0; k < 64 && at[s] < sources[s].second.size(); ++k)
        mixed.push_back(c.messages[first[s] + at[s]++]);
    }
  }
  c.messages = std::move(mixed);
  const std::string_view trace = c.keep("trace"), skip = c.keep("sluice.skip"),
                         id = c.keep("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
  for (size_t i = 0; i < c.messages.size(); ++i) {
    c.messages[i].raw.headers.emplace_back(trace, id);
    if (i % o.skip_every == o.skip_every - 1)
      c.messages[i].raw.headers.emplace_back(skip, std::nullopt);
  }
  return c;
}

struct pass_result {
  double seconds = 0;
  size_t rows = 0;          // rows after the merge, all batches
  size_t dead_letters = 0;  // must stay 0
  std::string wrong;        // checked passes: what the chain did not do
};

// What the chain must have done to a closed batch's rows ("" when it did): routed every topic,
// dropped note and email, renamed amount, added origin to every row that exists.
std::string chain_check(const lane_batch& l) {
  for (const table_rows& t : l.merged.tables) {
    if (t.topic.find(".replica.") == std::string::npos) return "topic " + t.topic + " not routed";
    for (const merged_row& r : t.rows) {
      bool origin = false;
      for (const merged_column& c : r.columns) {
        if (c.name == "note" || c.name == "email" || c.name == "amount")
          return "column " + c.name + " kept in " + t.topic;
        origin = origin || c.name == "origin";
      }
      if (r.exists() && !origin) return "no origin in a row of " + t.topic;
    }
  }
  return "";
}

pass_result run_pass(stage& s, corpus& c, const options& o, bool check_chain = false) {
  pass_result r;
  const auto close = [&] {
    for (const lane_batch& l : s.prepare.take()) {
      for (const auto& t : l.merged.tables)
        r.rows += t.rows.size();
      r.dead_letters += l.dead_letters.size();
      if (check_chain && r.wrong.empty()) r.wrong = chain_check(l);
    }
  };
  const double start = thread_seconds();
  for (int k = 0; k < o.repeat; ++k) {
    for (source_message& m : c.messages) {
      s.prepare.add(m, 0);
      if (s.prepare.messages() >= o.batch) close();
    }
  }
  close();
  r.seconds = thread_seconds() - start;
  return r;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string load_average() {
  double l[3] = {0, 0, 0};
  if (getloadavg(l, 3) != 3) return "unknown";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f %.2f %.2f", l[0], l[1], l[2]);
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const options o = parse(argc, argv);
    corpus c = build_corpus(o);
    stage none(base_config);
    // Not even loaded under --only none: a tree from before the transforms refuses its keys.
    std::optional<stage> chain;
    if (!o.only_none) chain.emplace(std::string(base_config) + chain_config);
    const double messages = static_cast<double>(c.messages.size()) * o.repeat;
    const std::string load_before = load_average();

    // Untimed: warms the decoders' schema caches and the chain's topic cache; checks the run.
    const pass_result warm_none = run_pass(none, c, o);
    const pass_result warm_chain = chain ? run_pass(*chain, c, o, true) : pass_result{};
    if (warm_none.dead_letters || warm_chain.dead_letters) {
      std::fprintf(stderr, "prepare_bench: dead letters (none %zu, chain %zu): a broken corpus\n",
                   warm_none.dead_letters, warm_chain.dead_letters);
      return 1;
    }
    if (!warm_chain.wrong.empty()) {
      std::fprintf(stderr, "prepare_bench: the chain did not run: %s\n", warm_chain.wrong.c_str());
      return 1;
    }
    std::vector<double> t_none, t_chain;
    for (int p = 0; p < o.passes; ++p) {
      // Alternating, the order flipped each pass: drift on a shared machine hits both alike.
      if (p % 2 == 0 || !chain) {
        t_none.push_back(run_pass(none, c, o).seconds);
        if (chain) t_chain.push_back(run_pass(*chain, c, o).seconds);
      } else {
        t_chain.push_back(run_pass(*chain, c, o).seconds);
        t_none.push_back(run_pass(none, c, o).seconds);
      }
    }
    const double best_none = *std::min_element(t_none.begin(), t_none.end());
    const double med_none = median(t_none);

    std::printf(
        "prepare_bench: %zu messages a pass x %d (%zu Debezium + %zu Datastream events, "
        "the Debezium fixtures; 1 in %zu with sluice.skip), batches of %zu, %d passes\n",
        c.messages.size(), o.repeat, o.events, o.events, o.skip_every, o.batch, o.passes);
    std::printf("load average before %s, after %s\n", load_before.c_str(), load_average().c_str());
    std::printf("%-6s %12s %12s %10s %10s %12s\n", "config", "msg/s best", "msg/s med", "ns/msg b",
                "ns/msg m", "rows a pass");
    const auto line = [&](const char* name, double best, double med, size_t rows) {
      std::printf("%-6s %12.0f %12.0f %10.0f %10.0f %12zu\n", name, messages / best, messages / med,
                  best / messages * 1e9, med / messages * 1e9, rows);
    };
    line("none", best_none, med_none, warm_none.rows);
    // Without the chain its columns are the none figures and its ratios 1.
    double best_chain = best_none, med_chain = med_none;
    if (chain) {
      best_chain = *std::min_element(t_chain.begin(), t_chain.end());
      med_chain = median(t_chain);
      line("chain", best_chain, med_chain, warm_chain.rows);
      std::printf("ratio chain/none (time): best %.3f, median %.3f\n", best_chain / best_none,
                  med_chain / med_none);
    }
    if (o.tsv) {
      std::printf("tsv\t%.0f\t%.0f\t%.1f\t%.1f\t%.4f\t%.4f\t%.0f\t%s\n", messages / best_none,
                  messages / best_chain, best_none / messages * 1e9, best_chain / messages * 1e9,
                  best_chain / best_none, med_chain / med_none, messages / med_none,
                  load_average().c_str());
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "prepare_bench: %s\n", e.what());
    return 2;
  }
}
