// A message whose Kafka timestamp is absurd, through the real broker into `sluice run`
// (issue 12): INT64_MAX / 2 ms as CreateTime, which times 1'000'000 overflows int64 (the
// suite also runs under UBSan), between ordinary messages and while a DSQL chunk waits for
// its last pieces. sluice keeps RUNNING, dead-letters that message with its reason (no sane
// time can replace it: librdkafka gives no broker append time for a CreateTime message),
// applies the rest, and the pending chunk is not expired by it; nor by a message stamped
// half a day ahead, which is kept (clock skew) but moves chunk.timeout's clock no further
// than a minute past wall time.

#include <doctest/doctest.h>

#include <chrono>
#include <limits>
#include <string>
#include <vector>

#include "integration/support/replica_checks.h"
#include "integration/support/services.h"
#include "integration/support/sluice_process.h"
#include "tests/connector/http/http_test_client.h"
#include "tests/schemas/dsql_records.h"

namespace sluice::testing {
namespace {

int64_t number(const std::string& sql) {
  return std::stoll(str(query(sql).at(0).at(0)));
}

std::string full_record(const std::string& table, int id, const std::string& note) {
  return R"({"type":"full","op":"c","before":null,"after":{"id":)" + std::to_string(id) +
         R"(,"note":")" + note + R"("},"source":{"version":"1.0","ts_ms":1,"ts_ns":)" +
         std::to_string(2000 + id) + R"(,"txId":"tx)" + std::to_string(id) +
         R"(","schema":"public","table":")" + table +
         R"(","db":"postgres","cluster":"c1"},"ts_ms":1,"ts_ns":1})";
}

std::string row_image(int id) {
  return R"({"id": )" + std::to_string(id) + R"(, "note": "chunked )" + std::to_string(id) +
         R"(", "text": ")" + std::string(6000, 'x') + R"("})";
}

}  // namespace

TEST_CASE("an absurd Kafka timestamp is dead-lettered, sluice runs on, pending chunks wait") {
  const std::string topic = unique_name("absurd_ts");
  const std::string connector = unique_name("absurd_ts");
  const std::string table = unique_name("absurd_rows");
  create_topic(topic, 2);
  execute("DROP TABLE IF EXISTS public.\"" + table + "\"");
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  const int64_t absurd_ms = std::numeric_limits<int64_t>::max() / 2;
  constexpr int64_t hour_ms = 3'600'000;

  // A chunk with two of its four pieces: it waits in PostgreSQL (chunk.timeout 15m).
  const auto chunk = dsql_chunk("chunk-" + topic, row_image(5), 3, "1005", "c", table);
  // Offsets per partition: p0 0 principal, 1 row 1, 2 absurd row 2, 3 row 3;
  //                        p1 0 fragment 0, 1 row 4 stamped 12 h ahead.
  produce(topic, {{std::nullopt, chunk.principal, 0, now_ms},
                  {std::nullopt, chunk.fragments[0], 1, now_ms},
                  {std::nullopt, full_record(table, 1, "before"), 0, now_ms},
                  {std::nullopt, full_record(table, 2, "absurd"), 0, absurd_ms},
                  {std::nullopt, full_record(table, 3, "after"), 0, now_ms},
                  {std::nullopt, full_record(table, 4, "ahead"), 1, now_ms + 12 * hour_ms}});

  const uint16_t port = free_port();
  std::string config = basic_config(connector, topic, "dsql",
                                    "errors.tolerance: all\nchunk.timeout: 15m\ntables:\n  "
                                    "\"public." +
                                        table + "\":\n    primary.key.fields: [id]\n",
                                    100);
  sluice_process sluice(with_metrics_listen(config, port));
  REQUIRE_MESSAGE(caught_up(connector, 6, std::chrono::seconds(90)), sluice.log());
  // Exactly: caught_up() waits for at least 6; an offset committed past a message is a bug.
  CHECK_MESSAGE(committed_messages(connector) == 6, sluice.log());

  // Still RUNNING, and no overflow reported by UBSan.
  CHECK(sluice.running());
  CHECK(http_request(port, "GET", "/readyz").status == 200);
  CHECK(sluice.log().find("runtime error") == std::string::npos);
  // The absurd one: one dead letter naming its timestamp and its type; its offset moved on.
  const std::string letters = "FROM sluice.dead_letters WHERE connector = '" + connector + "'";
  CHECK(number("SELECT count(*) " + letters) == 1);
  CHECK(number("SELECT count(*) " + letters +
               " AND partition = 0 AND kafka_offset = 2 AND reason LIKE 'bad_timestamp: Kafka "
               "timestamp " +
               std::to_string(absurd_ms) + " ms %(CreateTime, the producer''s)'") == 1);
  CHECK(number("SELECT count(*) " + letters + " AND value = convert_to('" +
               full_record(table, 2, "absurd") + "', 'UTF8')") == 1);
  // The others applied, the one half a day ahead too.
  CHECK(number("SELECT count(*) FROM public.\"" + table + "\" WHERE id IN (1, 3, 4)") == 3);
  CHECK(number("SELECT count(*) FROM public.\"" + table + "\" WHERE id = 2") == 0);
  // The chunk still waits: neither message moved chunk.timeout's clock 15 minutes on.
  CHECK(number("SELECT count(*) FROM sluice.pending_fragments WHERE connector = '" + connector +
               "' AND piece <> -2") == 2);

  // Its last pieces complete it.
  produce(topic, {{std::nullopt, chunk.fragments[1], 1}, {std::nullopt, chunk.fragments[2], 0}});
  REQUIRE_MESSAGE(caught_up(connector, 8, std::chrono::seconds(90)), sluice.log());
  // Exactly: caught_up() waits for at least 8; an offset committed past a message is a bug.
  CHECK_MESSAGE(committed_messages(connector) == 8, sluice.log());
  CHECK(wait_until(
      [&] { return number("SELECT count(*) FROM public.\"" + table + "\" WHERE id = 5") == 1; },
      std::chrono::seconds(10)));
  CHECK(number("SELECT count(*) " + letters) == 1);
  CHECK(sluice.stop() == 0);
  CHECK(sluice.log().find("runtime error") == std::string::npos);
}

}  // namespace sluice::testing
