// Aurora DSQL chunked records end to end (SPEC §3): principal records and fragments spread
// over the partitions of a topic consumed by `sluice run` with two apply lanes, so that the
// pieces of one image are held by different lanes, in any order. Every image must arrive in
// the replica exactly as it was before DSQL cut it; a chunk whose checksum does not match
// goes to the dead letters instead.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "integration/support/services.h"
#include "integration/support/sluice_process.h"
#include "tests/schemas/dsql_records.h"

namespace sluice::testing {
namespace {

std::string str(const std::optional<std::string>& v) {
  return v.value_or("<null>");
}

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

}  // namespace

TEST_CASE("DSQL chunks spread over partitions and lanes reassemble into the replica rows") {
  const std::string topic = unique_name("dsql_chunks");
  const std::string connector = unique_name("dsql_chunks");
  const std::string table = unique_name("chunked_rows");
  constexpr int partitions = 4;
  create_topic(topic, partitions);
  execute("DROP TABLE IF EXISTS public.\"" + table + "\"");

  // Three chunked rows, their pieces dealt round the partitions with the fragments first, so
  // every chunk has pieces on both lanes (lanes take alternate partitions).
  std::vector<kafka_record> records;
  std::vector<std::string> images;
  int next = 0;
  for (int id = 1; id <= 3; ++id) {
    images.push_back(big_image(id, 40'000 * static_cast<size_t>(id)));
    const auto c = dsql_chunk("chunk-" + topic + "-" + std::to_string(id), images.back(), 4,
                              std::to_string(1000 + id), "c", table);
    for (auto it = c.fragments.rbegin(); it != c.fragments.rend(); ++it)
      records.push_back({std::nullopt, *it, next++ % partitions});
    records.push_back({std::nullopt, c.principal, next++ % partitions});
  }
  // A full record next to them, and a chunk whose checksum is wrong.
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

  const std::string extra =
      "apply.lanes: 2\ntables:\n  \"public." + table + "\":\n    primary.key.fields: [id]\n";
  sluice_process sluice(basic_config(connector, topic, "dsql", extra, 3));
  const bool caught_up = wait_until(
      [&] {
        if (query("SELECT to_regclass('sluice.offsets')").at(0).at(0) == std::nullopt) return false;
        return number(
                   "SELECT coalesce(sum(next_offset), 0) FROM sluice.offsets WHERE "
                   "connector = '" +
                   connector + "'") == static_cast<int64_t>(records.size());
      },
      std::chrono::seconds(90));
  REQUIRE_MESSAGE(caught_up, sluice.log());

  // Each replica row is its image: compare column by column with the reassembled text.
  for (int id = 1; id <= 3; ++id) {
    CAPTURE(id);
    const auto rows = query(
        "SELECT r.note = i->>'note', r.text = i->>'text', "
        "r.big::text, r.flag::text FROM public.\"" +
        table + "\" r, (SELECT '" + images[id - 1] +
        "'::jsonb AS i) j WHERE r.id = " + std::to_string(id));
    REQUIRE(rows.size() == 1);
    CHECK(str(rows[0][0]) == "t");
    CHECK(str(rows[0][1]) == "t");
    CHECK(str(rows[0][2]) == "12345678901234567890.125");
    CHECK(str(rows[0][3]) == "true");
  }
  CHECK(number("SELECT count(*) FROM public.\"" + table + "\"") == 4);  // 1, 2, 3 and 9
  CHECK(number("SELECT count(*) FROM public.\"" + table + "\" WHERE id = 4") == 0);
  CHECK(number("SELECT count(*) FROM sluice.pending_fragments WHERE connector = '" + connector +
               "'") == 0);
  // The bad chunk: its three pieces, each naming the chunk and the mismatch.
  CHECK(number("SELECT count(*) FROM sluice.dead_letters WHERE connector = '" + connector +
               "' AND reason LIKE 'chunk " + bad_id + ": CRC32C mismatch%'") == 3);
  CHECK(number("SELECT count(*) FROM sluice.dead_letters WHERE connector = '" + connector + "'") ==
        3);
  CHECK(sluice.stop() == 0);
}

}  // namespace sluice::testing
