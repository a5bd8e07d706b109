// Issue 25 end to end: a small message never decodes into a huge one. The two findings, each
// one Kafka message — a 64 KiB Datastream Avro event whose array of nulls every block claims
// again, and a container of 200 deflate blocks that inflate to 4 MiB each (3.3 MB on the
// wire) — beside a compressible 2 MB container of valid events, through `sluice decode
// --kafka-json` (kcat lines) and through `sluice run` from a real topic; and the first finding
// as Debezium Avro through the real registry. Each hostile message is refused (a dead letter
// with its bound named) in seconds, the valid one is applied whole, and sluice's peak RSS stays
// under 256 MiB: before the fix the first took gigabytes (std::bad_alloc, then a crash loop on
// the same message), the second ~16 GiB for a 16 MiB message. The RSS bound is checked in the
// release build only: ASan's shadow memory and quarantine inflate it.

#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <vector>

#include "integration/support/kcat_lines.h"
#include "integration/support/process_stats.h"
#include "integration/support/registry_admin.h"
#include "integration/support/replica_checks.h"
#include "integration/support/services.h"
#include "integration/support/sluice_process.h"
#include "tests/schemas/hostile_avro.h"

namespace sluice::testing {
namespace {

#ifdef SLUICE_SANITIZED
constexpr bool sanitized = true;
#else
constexpr bool sanitized = false;
#endif
constexpr double rss_limit_mb = 256;

// The three Datastream messages, built once (the compressible one takes a moment).
struct datastream_messages {
  std::string null_items;  // finding 1: 64 KiB
  std::string blocks;      // finding 2: 200 deflate blocks of 4 MiB
  std::string valid;       // ~2 MB of deflate blocks of distinct events
  size_t valid_rows = 0;

  static const datastream_messages& get() {
    static const datastream_messages m = [] {
      datastream_messages d;
      d.null_items = avro_build::null_items_container(64 << 10);
      d.blocks = avro_build::deflate_blocks_container(200, 4 << 20);
      d.valid = avro_build::compressible_container(2 << 20, d.valid_rows);
      return d;
    }();
    return m;
  }
};

size_t lines_in(const std::string& text) {
  size_t n = 0;
  for (char c : text)
    n += c == '\n';
  return n;
}

// A topic and producer that take messages of up to 8 MiB (the broker's default is 1 MiB).
const std::map<std::string, std::string> big_messages = {{"max.message.bytes", "8388608"}};
const std::map<std::string, std::string> big_producer = {{"message.max.bytes", "8388608"}};

void check_rss(double peak_mb, const std::string& what) {
  MESSAGE(what << ": peak RSS " << peak_mb << " MiB"
               << std::string(sanitized ? " (ASan: unbounded)" : ""));
  if (!sanitized) CHECK(peak_mb < rss_limit_mb);
}

}  // namespace

TEST_CASE(
    "sluice decode --kafka-json: both findings are refused with their bound named, in seconds, "
    "under 256 MiB, and the compressible 2 MB container beside them decodes whole") {
  const datastream_messages& m = datastream_messages::get();
  REQUIRE(m.null_items.size() < 70'000);
  REQUIRE(m.blocks.size() < 4'000'000);
  REQUIRE(m.valid.size() > 2'000'000);
  const std::string lines = kcat_line("bounds", 0, 0, std::nullopt, m.null_items) + "\n" +
                            kcat_line("bounds", 0, 1, std::nullopt, m.blocks) + "\n" +
                            kcat_line("bounds", 0, 2, std::nullopt, m.valid) + "\n";
  const command_result r =
      run_sluice({"decode", "--format", "datastream", "--kafka-json"}, lines, 120);
  MESSAGE("decode: " << r.seconds << " s; stderr: " << r.err);
  CHECK(r.exit_code == 1);  // refused input: not a clean decode, the rest printed all the same
  CHECK(contains(r.err,
                 "bounds[0]@0: too_large: record 0 payload: column \"extra\": decoded "
                 "output exceeds the decoded-output bound of 64 units a byte"));
  CHECK(contains(r.err,
                 "bounds[0]@1: too_large: block 4: the container's blocks decompress to "
                 "more than 16777216 bytes in all (the message size bound, "
                 "limits.max.message.bytes)"));
  CHECK_FALSE(contains(r.err, "bounds[0]@2"));
  CHECK(lines_in(r.out) == m.valid_rows);  // one change a line, every row of the valid one
  CHECK(r.seconds < 60);                   // was: minutes of CPU, then std::bad_alloc
  check_rss(r.peak_rss_mb, "sluice decode");
}

TEST_CASE(
    "sluice run from a real topic: both findings become dead letters naming their bound, the "
    "valid container's rows are applied, the offsets move past all three, under 256 MiB") {
  const datastream_messages& m = datastream_messages::get();
  const std::string topic = unique_name("bounds");
  create_topic(topic, 1, big_messages);
  produce(
      topic,
      {{std::nullopt, m.null_items, 0}, {std::nullopt, m.blocks, 0}, {std::nullopt, m.valid, 0}},
      big_producer);

  const std::string connector = unique_name("bounds");
  const std::string schema = unique_name("bounds_replica");
  sluice_process sluice(
      basic_config(connector, topic, "datastream",
                   "auto.create: true\ntable.name.format: \"" + schema + ".${table}\"\n", 5000),
      "bounds");
  const auto started = std::chrono::steady_clock::now();
  REQUIRE_MESSAGE(caught_up(connector, 3, std::chrono::seconds(180)), sluice.log());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const double peak = process_peak_rss_mb(sluice.pid());
  MESSAGE("run: all three committed " << seconds << " s after the start");

  CHECK(dead_letter_count(topic) == 2);
  const std::string reasons = dead_letter_reasons(topic);
  CHECK_MESSAGE(contains(reasons, "decoded-output bound of 64 units a byte"), reasons);
  CHECK_MESSAGE(contains(reasons, "limits.max.message.bytes"), reasons);
  // A dead letter keeps the message's bytes: nothing is lost.
  CHECK(count_of("SELECT sum(length(value)) FROM sluice.dead_letters WHERE topic = '" + topic +
                 "'") == static_cast<int64_t>(m.null_items.size() + m.blocks.size()));
  CHECK(count_of("SELECT count(*) FROM \"" + schema + "\".t") ==
        static_cast<int64_t>(m.valid_rows));
  check_rss(peak, "sluice run");
  CHECK(sluice.stop() == 0);
}

TEST_CASE(
    "Debezium Avro through the registry: a 64 KiB value of null items is a dead letter naming "
    "the bound, through decode and run; a valid change beside it is applied") {
  const std::string topic = unique_name("bounds_dbz");
  create_topic(topic, 1);
  const std::string nulls = R"({"type":"array","items":"null"})";
  // A doc of their own: a registry numbers equal texts alike, and other connectors read them.
  const auto own = [&](std::string schema) {
    return schema.insert(1, "\"doc\":\"" + topic + "\",");
  };
  const int32_t key_id =
      register_schema(topic + "-key", own(avro_build::debezium_key_schema(nulls))).value();
  const int32_t value_id =
      register_schema(topic + "-value", own(avro_build::debezium_value_schema(nulls))).value();
  const auto key = [&](int32_t id) {
    std::string k;
    avro_build::put_long(k, id);
    avro_build::put_long(k, 0);  // nulls: []
    return avro_build::confluent_framed(key_id, k);
  };
  std::string empty;
  avro_build::put_long(empty, 0);
  const std::string hostile = avro_build::confluent_framed(
      value_id, avro_build::debezium_body(1, avro_build::zero_byte_items(64 << 10)));
  const std::string valid =
      avro_build::confluent_framed(value_id, avro_build::debezium_body(2, empty));
  REQUIRE(hostile.size() < 70'000);

  const std::string connector = unique_name("bounds_dbz");
  const std::string schema = unique_name("bounds_dbz_replica");
  const std::string config =
      basic_config(connector, topic, "debezium",
                   "auto.create: true\ntable.name.format: \"" + schema +
                       ".${table}\"\nschema.registry.url: \"" + registry_url() + "\"\n",
                   100);

  const command_result decoded =
      run_sluice({"decode", "-c", write_run_file("bounds_dbz.yaml", config), "--kafka-json"},
                 kcat_line(topic, 0, 0, key(1), hostile) + "\n" +
                     kcat_line(topic, 0, 1, key(2), valid) + "\n");
  CHECK(decoded.exit_code == 1);  // the hostile message refused
  CHECK_MESSAGE(contains(decoded.err, topic + "[0]@0: too_large"), decoded.err);
  CHECK_MESSAGE(contains(decoded.err, "decoded-output bound"), decoded.err);
  CHECK(lines_in(decoded.out) == 1);
  check_rss(decoded.peak_rss_mb, "sluice decode (Debezium Avro)");

  produce(topic, {{key(1), hostile, 0}, {key(2), valid, 0}});
  sluice_process sluice(config, "bounds_dbz");
  REQUIRE_MESSAGE(caught_up(connector, 2, std::chrono::seconds(120)), sluice.log());
  CHECK(dead_letter_count(topic) == 1);
  CHECK_MESSAGE(contains(dead_letter_reasons(topic), "decoded-output bound"),
                dead_letter_reasons(topic));
  CHECK(count_of("SELECT count(*) FROM \"" + schema + "\".t WHERE id = 2") == 1);
  check_rss(process_peak_rss_mb(sluice.pid()), "sluice run (Debezium Avro)");
  CHECK(sluice.stop() == 0);
}

}  // namespace sluice::testing
