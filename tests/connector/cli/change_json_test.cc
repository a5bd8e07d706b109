#include "connector/cli/change_json.h"

#include <doctest/doctest.h>

#include "core/catalog/table_catalog.h"

namespace sluice {
namespace {

message_origin origin() {
  return {"gg.orders", partition_id{1}, kafka_offset{42}, timestamp_ns{0}};
}

}  // namespace

TEST_CASE("a catalog update prints as one {\"catalog\":...} line") {
  catalog_update u;
  u.table = {"", "SHOP", "ORDERS"};
  u.columns = {{"ID", "NUMBER(10)", column_class::numeric, false, true, {type_id::decimal, 10, 0}},
               {"NOTE", "VARCHAR2", column_class::text, true, false, {}}};
  u.key_columns = {"ID"};
  u.learned_from = "goldengate OBJECT_METADATA";
  u.seq = csn_builder().add(7).build();
  u.origin = origin();
  std::string out;
  append_catalog_update_json(out, u);
  CHECK(out ==
        R"({"catalog":{"table":"SHOP.ORDERS","key":["ID"],"columns":[)"
        R"j({"name":"ID","type":"NUMBER(10)","portable_type":"decimal(10,0)","class":"numeric",)j"
        R"("nullable":false,"key":true},)"
        R"({"name":"NOTE","type":"VARCHAR2","portable_type":"unknown","class":"text",)"
        R"("nullable":true,"key":false}],)"
        R"("learned_from":"goldengate OBJECT_METADATA","csn":")" +
            u.seq.hex() +
            R"(","csn_parts":[7],"source":{"topic":"gg.orders","partition":1,"offset":42}}})");
}

TEST_CASE("a DDL record prints as one {\"ddl\":...} line with its statement escaped") {
  ddl_record d;
  d.table = {"", "SHOP", "ORDERS"};
  d.statement = "ALTER TABLE \"ORDERS\"\nADD (X NUMBER)";
  d.source_ts = timestamp_ns{1'767'225'600'000'000'000};
  d.origin = origin();
  std::string out;
  append_ddl_json(out, d);
  CHECK(out ==
        R"j({"ddl":{"table":"SHOP.ORDERS","statement":"ALTER TABLE \"ORDERS\"\nADD (X NUMBER)",)j"
        R"("csn":"","csn_parts":[],"source":{"ts":"2026-01-01T00:00:00.000000Z",)"
        R"("topic":"gg.orders","partition":1,"offset":42}}})");
}

TEST_CASE("chunk pieces print as {\"chunk\":...} lines: the principal with its total and CRC") {
  chunk_piece principal;
  principal.chunk_id = "c\"1";
  principal.total_fragments = 3;
  principal.crc32c = 2073618257;
  principal.payload = "0123456789";
  principal.origin = origin();
  std::string out;
  append_chunk_piece_json(out, principal);
  CHECK(out == R"({"chunk":{"chunk_id":"c\"1","piece":"principal","total_fragments":3,)"
               R"("crc32c":"2073618257","bytes":10,"source":{"topic":"gg.orders","partition":1,)"
               R"("offset":42}}})");
  chunk_piece fragment = principal;
  fragment.index = 2;
  fragment.payload = "abc";
  out.clear();
  append_chunk_piece_json(out, fragment);
  CHECK(out == R"({"chunk":{"chunk_id":"c\"1","piece":2,"bytes":3,)"
               R"("source":{"topic":"gg.orders","partition":1,"offset":42}}})");
}

TEST_CASE("sluice decode prints a bytes value, key or column, as its base64 string") {
  table_catalog catalog;
  change c;
  c.table = catalog.intern(table_name{"", "shop", "blobs"});
  auto key = make_row_key({"k"}, {value::bytes(std::string("\x00\xff", 2))});
  REQUIRE(key.ok());
  c.key = std::move(key.value());
  c.after = {{"k", value::bytes(std::string("\x00\xff", 2))}, {"b", value::bytes("\\\"")}};
  c.seq = csn_builder().add(1).build();
  std::string out;
  append_change_json(out, c);
  CHECK(out.find(R"("key":{"k":"AP8="})") != std::string::npos);
  CHECK(out.find(R"("image":{"k":"AP8=","b":"XCI="})") != std::string::npos);
}

}  // namespace sluice
