#include "sinks/mariadb/state/dead_letter_writer.h"

#include <doctest/doctest.h>

#include <string>

#include "sinks/plan/digest.h"
#include "tests/sinks/mariadb/state_test_db.h"

namespace sluice {
namespace {

using testing::state_test_db;

dead_letter letter(std::string reason, int64_t offset, std::optional<std::string> value) {
  dead_letter d;
  d.reason = std::move(reason);
  d.kind = dead_letter_kind::decode;
  d.origin.topic = "orders";
  d.origin.partition = partition_id(2);
  d.origin.offset = kafka_offset(offset);
  d.origin.timestamp = timestamp_ns(int64_t{1'700'000'000'123} * 1'000'000);
  d.key = std::string("k\0\xff", 3);
  d.value = std::move(value);
  return d;
}

TEST_CASE("mariadb dead letters: written in one execution, ids in the letters' order") {
  state_test_db db("mdb_dl_write");
  const mdb::dead_letter_writer writer(db.schema, "c");
  dead_letter a = letter("bad json", 5, std::string("{\0\x80", 3));
  a.headers = {{"trace", "abc"}, {"bin", std::string("\xff", 1)}, {"none", std::nullopt}};
  dead_letter b = letter("no table", 6, std::nullopt);
  b.kind = dead_letter_kind::routing;
  b.target_schema = "s";
  b.target_table = "t";
  dead_letter merged;  // from no single message: no origin
  merged.reason = "refused";
  merged.kind = dead_letter_kind::rejected;
  std::vector<int64_t> ids;
  const size_t n = db.in_tx([&](mdb::connection& c) {
    // Another write first, so that the ids do not start at 1.
    writer.write(c, {&b});
    return writer.write(c, {&a, &b, &merged}, &ids);
  });
  CHECK(n == 3);
  REQUIRE(ids.size() == 3);
  CHECK(ids[0] < ids[1]);
  CHECK(ids[1] < ids[2]);
  const auto r = db.conn.query(
      "SELECT id, reason, kind, target_schema, target_table, topic, `partition`, kafka_offset, "
      "DATE_FORMAT(kafka_timestamp, '%Y-%m-%d %H:%i:%s.%f'), HEX(`key`), HEX(value), "
      "JSON_EXTRACT(headers, '$[1].value_hex'), JSON_LENGTH(headers) FROM " +
      db.schema.table("dead_letters") + " ORDER BY id");
  REQUIRE(r.size() == 4);
  CHECK(r.at(1, 0) == std::to_string(ids[0]));
  CHECK(r.at(1, 1) == "bad json");
  CHECK(r.at(1, 2) == "decode");
  CHECK_FALSE(r.at(1, 3));
  CHECK(r.at(1, 5) == "orders");
  CHECK(r.at(1, 6) == "2");
  CHECK(r.at(1, 7) == "5");
  CHECK(r.at(1, 8) == "2023-11-14 22:13:20.123000");
  CHECK(r.at(1, 9) == "6B00FF");
  CHECK(r.at(1, 10) == "7B0080");
  CHECK(r.at(1, 11) == "\"ff\"");
  CHECK(r.at(1, 12) == "3");
  CHECK(r.at(2, 2) == "routing");
  CHECK(r.at(2, 4) == "t");
  CHECK_FALSE(r.at(2, 10));
  CHECK(r.at(3, 0) == std::to_string(ids[2]));
  CHECK_FALSE(r.at(3, 5));
  CHECK_FALSE(r.at(3, 8));
}

TEST_CASE(
    "mariadb dead letters: a letter larger than max_allowed_packet is stored cut, saying so") {
  state_test_db db("mdb_dl_huge");
  const size_t packet = std::stoull(*db.conn.query("SELECT @@max_allowed_packet").at(0, 0));
  // Bigger than the packet on its own, beside a small one in the same batch.
  const std::string huge(packet + 4096, 'v');
  dead_letter big = letter("too deep", 7, huge);
  big.headers = {{"h", "x"}};
  dead_letter small = letter("bad", 8, std::string("ok"));
  const mdb::dead_letter_writer writer(db.schema, "c");
  std::vector<int64_t> ids;
  db.in_tx([&](mdb::connection& c) { writer.write(c, {&small, &big}, &ids); });
  REQUIRE(ids.size() == 2);
  const auto r = db.conn.query("SELECT LENGTH(value), reason, headers FROM " +
                               db.schema.table("dead_letters") + " ORDER BY id");
  REQUIRE(r.size() == 2);
  CHECK(r.at(0, 0) == "2");
  CHECK(r.at(0, 1) == "bad");
  const size_t kept = std::stoull(*r.at(1, 0));
  CHECK(kept > 0);
  CHECK(kept < packet);
  const std::string reason = *r.at(1, 1);
  CHECK(reason.starts_with("too deep [stored cut to fit max_allowed_packet:"));
  CHECK(reason.find("headers dropped") != std::string::npos);
  CHECK(reason.find("value cut to " + std::to_string(kept) + " of " + std::to_string(huge.size()) +
                    " bytes") != std::string::npos);
  CHECK(reason.find(sha256_hex(huge)) != std::string::npos);
  CHECK_FALSE(r.at(1, 2));
}

TEST_CASE(
    "mariadb dead letters: letters that fit one by one but not together go in several "
    "executions") {
  state_test_db db("mdb_dl_split");
  // A small packet for the writer (the server's is larger): each letter fits, three do not.
  const mdb::dead_letter_writer writer(db.schema, "c", 64 * 1024);
  const std::string value(30 * 1024, 'x');
  dead_letter a = letter("a", 1, value), b = letter("b", 2, value), c = letter("c", 3, value);
  std::vector<int64_t> ids;
  db.in_tx([&](mdb::connection& conn) { writer.write(conn, {&a, &b, &c}, &ids); });
  REQUIRE(ids.size() == 3);
  const auto r = db.conn.query("SELECT reason, LENGTH(value) FROM " +
                               db.schema.table("dead_letters") + " ORDER BY id");
  REQUIRE(r.size() == 3);
  for (size_t i = 0; i < 3; ++i)
    CHECK(r.at(i, 1) == std::to_string(value.size()));  // whole
  CHECK(r.at(0, 0) == "a");
  CHECK(r.at(2, 0) == "c");
}

TEST_CASE("mariadb dead letters: a reason or target name too long for its column is cut") {
  state_test_db db("mdb_dl_long");
  const mdb::dead_letter_writer writer(db.schema, "c");
  dead_letter d = letter(std::string(70'000, 'r'), 1, std::string("v"));
  d.kind = dead_letter_kind::routing;
  d.target_schema = "s";
  d.target_table = std::string(70, 't');
  db.in_tx([&](mdb::connection& c) { writer.write(c, {&d}); });
  const auto r = db.conn.query("SELECT LENGTH(reason), CHAR_LENGTH(target_table) FROM " +
                               db.schema.table("dead_letters"));
  CHECK(std::stoull(*r.at(0, 0)) <= 65'535);
  CHECK(r.at(0, 1) == "64");
}

}  // namespace
}  // namespace sluice
