// Aurora DSQL chunked records end to end (SPEC §3): principal records and fragments spread
// over the partitions of a topic consumed by `sluice run` with two apply lanes, so that the
// pieces of one image are held by different lanes, in any order. Every image must arrive in
// the replica exactly as it was before DSQL cut it; a chunk whose checksum does not match
// goes to the dead letters instead.

#include <doctest/doctest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <map>
#include <sstream>
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

// A row image of some size, with values that must survive byte for byte.
std::string big_image(int id, size_t filler) {
  std::string text;
  for (size_t i = 0; text.size() < filler; ++i)
    text += "line " + std::to_string(i * 7919 % 1000) + " \\u00e9\\n ";
  return R"({"id": )" + std::to_string(id) + R"(, "note": "image )" + std::to_string(id) +
         R"(", "text": ")" + text + R"(", "big": 12345678901234567890.125, "flag": true})";
}

// sluice_pending_chunks as a live sluice exports it; -1 when it cannot be read.
double pending_chunks(uint16_t port) {
  try {
    std::istringstream in(http_request(port, "GET", "/metrics").body);
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("sluice_pending_chunks ", 0) == 0) {
        return std::stod(line.substr(line.rfind(' ') + 1));
      }
    }
  } catch (const std::exception&) {
  }
  return -1;
}

}  // namespace

TEST_CASE("DSQL chunks spread over partitions and lanes reassemble into the replica rows") {
  const std::string topic = unique_name("dsql_chunks");
  const std::string connector = unique_name("dsql_chunks");
  const std::string table = unique_name("chunked_rows");
  constexpr int partitions = 4;
  create_topic(topic, partitions);
  execute("DROP TABLE IF EXISTS public.\"" + table + "\"");

  // First, some pieces of one chunk only: they wait in PostgreSQL, counted by the gauge.
  std::map<int, std::string> images;
  images[5] = big_image(5, 5000);
  const auto late = dsql_chunk("chunk-" + topic + "-late", images[5], 3, "1005", "c", table);
  produce(topic, {{std::nullopt, late.principal, 3}, {std::nullopt, late.fragments[0], 0}});

  const uint16_t port = free_port();
  std::string config = basic_config(
      connector, topic, "dsql",
      "apply.lanes: 2\ntables:\n  \"public." + table + "\":\n    primary.key.fields: [id]\n", 3);
  const std::string off = "metrics:\n  listen: \"\"\n";
  config.replace(config.find(off), off.size(),
                 "metrics:\n  listen: \"127.0.0.1:" + std::to_string(port) + "\"\n");
  sluice_process sluice(config);
  const auto committed = [&](int64_t total) {
    return wait_until(
        [&] {
          if (!query("SELECT to_regclass('sluice.offsets')").at(0).at(0)) return false;
          return number(
                     "SELECT coalesce(sum(next_offset), 0) FROM sluice.offsets WHERE "
                     "connector = '" +
                     connector + "'") == total;
        },
        std::chrono::seconds(90));
  };
  REQUIRE_MESSAGE(committed(2), sluice.log());
  CHECK(wait_until([&] { return pending_chunks(port) == 1; }, std::chrono::seconds(10)));
  CHECK(number("SELECT count(*) FROM sluice.pending_fragments WHERE connector = '" + connector +
               "'") == 2);

  // Then three chunked rows, their pieces dealt round the partitions with the fragments first,
  // so every chunk has pieces on both lanes (lanes take alternate partitions); the rest of the
  // first chunk; a full record; and a chunk whose checksum is wrong.
  std::vector<kafka_record> records;
  int next = 0;
  for (int id = 1; id <= 3; ++id) {
    images[id] = big_image(id, 40'000 * static_cast<size_t>(id));
    const auto c = dsql_chunk("chunk-" + topic + "-" + std::to_string(id), images[id], 4,
                              std::to_string(1000 + id), "c", table);
    for (auto it = c.fragments.rbegin(); it != c.fragments.rend(); ++it)
      records.push_back({std::nullopt, *it, next++ % partitions});
    records.push_back({std::nullopt, c.principal, next++ % partitions});
  }
  records.push_back({std::nullopt, late.fragments[2], 1});
  records.push_back({std::nullopt, late.fragments[1], 2});
  records.push_back(
      {std::nullopt,
       R"({"type":"full","op":"c","before":null,"after":{"id":9,"note":"whole"},"source":)"
       R"({"version":"1.0","ts_ms":1,"ts_ns":1009,"txId":"tx9","schema":"public","table":")" +
           table + R"(","db":"postgres","cluster":"c1"},"ts_ms":1,"ts_ns":1})",
       next++ % partitions});
  const std::string bad_image = big_image(4, 1000);
  const auto parts = split_text(bad_image, 2);
  const std::string bad_id = "chunk-" + topic + "-bad";
  records.push_back({std::nullopt, dsql_fragment(bad_id, 0, parts[0]), 0});
  records.push_back({std::nullopt, dsql_fragment(bad_id, 1, parts[1]), 1});
  records.push_back(
      {std::nullopt, dsql_principal(bad_id, 2, crc32c(bad_image) + 1, "1004", "c", table), 2});
  produce(topic, records);
  REQUIRE_MESSAGE(committed(static_cast<int64_t>(records.size()) + 2), sluice.log());
  CHECK(wait_until([&] { return pending_chunks(port) == 0; }, std::chrono::seconds(10)));

  // Each replica row is its image: compare column by column with the image text.
  for (int id : {1, 2, 3, 5}) {
    CAPTURE(id);
    const auto rows = query(
        "SELECT r.note = i->>'note', r.text = i->>'text', r.big::text, r.flag::text FROM "
        "public.\"" +
        table + "\" r, (SELECT '" + images[id] +
        "'::jsonb AS i) j WHERE r.id = " + std::to_string(id));
    REQUIRE(rows.size() == 1);
    CHECK(str(rows[0][0]) == "t");
    CHECK(str(rows[0][1]) == "t");
    CHECK(str(rows[0][2]) == "12345678901234567890.125");
    CHECK(str(rows[0][3]) == "true");
  }
  CHECK(number("SELECT count(*) FROM public.\"" + table + "\"") == 5);  // 1, 2, 3, 5 and 9
  CHECK(number("SELECT count(*) FROM public.\"" + table + "\" WHERE id = 4") == 0);
  // Nothing waits; each completed chunk leaves a marker (piece -2) against late redeliveries.
  CHECK(number("SELECT count(*) FROM sluice.pending_fragments WHERE connector = '" + connector +
               "' AND piece <> -2") == 0);
  CHECK(number("SELECT count(*) FROM sluice.pending_fragments WHERE connector = '" + connector +
               "' AND piece = -2") == 5);
  // The bad chunk: its three pieces, each naming the chunk and the mismatch.
  CHECK(number("SELECT count(*) FROM sluice.dead_letters WHERE connector = '" + connector +
               "' AND reason LIKE 'chunk " + bad_id + ": CRC32C mismatch%'") == 3);
  CHECK(number("SELECT count(*) FROM sluice.dead_letters WHERE connector = '" + connector + "'") ==
        3);
  CHECK(sluice.stop() == 0);
}

TEST_CASE("a chunked row goes through the transforms and field rules as a whole record does") {
  // The preparer sees only a chunk's pieces: the change the applier completes must still be
  // routed by the RegexRouter's topic, renamed by ReplaceField and stripped by fields.exclude,
  // into the same table as the topic's whole records.
  const std::string topic = unique_name("dsql_chunks_tf");
  const std::string connector = unique_name("dsql_chunks_tf");
  const std::string table = unique_name("chunked_src");
  const std::string routed = topic + "_routed";
  create_topic(topic, 1);
  const std::string image = big_image(1, 40'000);
  const auto c = dsql_chunk("chunk-" + topic, image, 3, "1001", "c", table);
  std::vector<kafka_record> records;
  for (const std::string& f : c.fragments)
    records.push_back({std::nullopt, f, 0});
  records.push_back({std::nullopt, c.principal, 0});
  records.push_back(
      {std::nullopt,
       R"({"type":"full","op":"c","before":null,"after":{"id":9,"note":"whole","text":"t"},)"
       R"("source":{"version":"1.0","ts_ms":1,"ts_ns":1009,"txId":"tx9","schema":"public",)"
       R"("table":")" +
           table + R"(","db":"postgres","cluster":"c1"},"ts_ms":1,"ts_ns":1})",
       0});
  produce(topic, records);

  sluice_process sluice(basic_config(connector, topic, "dsql",
                                     "table.name.format: \"public.${topic}\"\n"
                                     "transforms: [route, fields]\n"
                                     "transforms.route.type: RegexRouter\n"
                                     "transforms.route.regex: \"(.*)\"\n"
                                     "transforms.route.replacement: \"$1_routed\"\n"
                                     "transforms.fields.type: ReplaceField\n"
                                     "transforms.fields.renames: [\"note:remark\"]\n"
                                     "fields.exclude: [text]\n"
                                     "tables:\n  \"public." +
                                         table + "\":\n    primary.key.fields: [id]\n"));
  REQUIRE_MESSAGE(
      caught_up(connector, static_cast<int64_t>(records.size()), std::chrono::seconds(90)),
      sluice.log());
  CHECK(sluice.stop() == 0);

  CHECK(number("SELECT count(*) FROM sluice.dead_letters WHERE connector = '" + connector + "'") ==
        0);
  CHECK(number("SELECT count(*) FROM pg_tables WHERE tablename IN ('" + table + "', '" + topic +
               "')") == 0);
  const auto rows =
      query("SELECT id, remark FROM public.\"" + routed + "\" ORDER BY id");  // both records
  REQUIRE(rows.size() == 2);
  CHECK(str(rows[0][1]) == "image 1");
  CHECK(str(rows[1][1]) == "whole");
  CHECK(number("SELECT count(*) FROM information_schema.columns WHERE table_name = '" + routed +
               "' AND column_name IN ('text', 'note')") == 0);
  CHECK(number("SELECT count(*) FROM public.\"" + routed + "\" WHERE big IS NOT NULL") == 1);
}

TEST_CASE("a key read from the target under a renamed key column is found in the source image") {
  // DSQL records carry no key: sluice reads it from the target table, whose key column is
  // named as fields.rename makes it (order_id); the decoder must look for the source's (id),
  // in whole records and in chunked ones (decoded by the applier's own key lookup).
  const std::string topic = unique_name("dsql_renamed_key");
  const std::string connector = unique_name("dsql_renamed_key");
  const std::string table = unique_name("renamed_key");
  create_topic(topic, 1);
  execute("CREATE TABLE public.\"" + table +
          "\" (order_id bigint PRIMARY KEY, note text, text text, big numeric, flag boolean)");
  const std::string image = big_image(1, 40'000);
  const auto c = dsql_chunk("chunk-" + topic, image, 3, "1001", "c", table);
  std::vector<kafka_record> records;
  for (const std::string& f : c.fragments)
    records.push_back({std::nullopt, f, 0});
  records.push_back({std::nullopt, c.principal, 0});
  records.push_back(
      {std::nullopt,
       R"({"type":"full","op":"c","before":null,"after":{"id":9,"note":"whole"},)"
       R"("source":{"version":"1.0","ts_ms":1,"ts_ns":1009,"txId":"tx9","schema":"public",)"
       R"("table":")" +
           table + R"(","db":"postgres","cluster":"c1"},"ts_ms":1,"ts_ns":1})",
       0});
  produce(topic, records);

  sluice_process sluice(basic_config(connector, topic, "dsql", "fields.rename: {id: order_id}\n"));
  REQUIRE_MESSAGE(
      caught_up(connector, static_cast<int64_t>(records.size()), std::chrono::seconds(90)),
      sluice.log());
  CHECK(sluice.stop() == 0);
  CHECK(number("SELECT count(*) FROM sluice.dead_letters WHERE connector = '" + connector + "'") ==
        0);
  const auto rows = query("SELECT order_id, note FROM public.\"" + table + "\" ORDER BY 1");
  REQUIRE(rows.size() == 2);
  CHECK(str(rows[0][0]) == "1");
  CHECK(str(rows[0][1]) == "image 1");
  CHECK(str(rows[1][0]) == "9");
  CHECK(str(rows[1][1]) == "whole");
}

}  // namespace sluice::testing
