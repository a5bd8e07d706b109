#include "sinks/plan/change_dead_letter.h"

#include <doctest/doctest.h>

#include <string>

#include "core/catalog/table_catalog.h"
#include "core/model/base64.h"

namespace sluice {
namespace {

const std::string raw("\x00\xff\\\"", 4);

TEST_CASE("a merged row's dead letter names its bytes columns, so base64 is not a string") {
  table_catalog catalog;
  table_rows t;
  t.table = catalog.intern(table_name{"", "shop", "blobs"});
  merged_row row;
  auto key = make_row_key({"k"}, {value::bytes(raw)});
  REQUIRE(key.ok());
  row.key = std::move(key.value());
  row.upsert_seq = csn_builder().add(5).build();
  row.columns.emplace_back("k", value::bytes(raw), row.upsert_seq);
  row.columns.emplace_back("s", value::string("AP9cIg=="), row.upsert_seq);
  row.columns.emplace_back("b", value::bytes(raw), row.upsert_seq);
  const dead_letter dl = merged_row_dead_letter(t, row, "refused");
  CHECK(dl.key == R"({"k":"AP9cIg=="})");
  const std::string v = dl.value.value();
  CHECK(v.find(R"("image":{"k":"AP9cIg==","s":"AP9cIg==","b":"AP9cIg=="})") != std::string::npos);
  // The string that looks like base64 is not listed; the key column is listed once.
  CHECK(v.find(R"("bytes_columns":["k","b"])") != std::string::npos);
  std::string back;
  CHECK(decode_base64("AP9cIg==", back));
  CHECK(back == raw);
}

TEST_CASE("a dead letter without bytes has no bytes_columns") {
  table_catalog catalog;
  table_rows t;
  t.table = catalog.intern(table_name{"", "shop", "events"});
  change c;
  c.table = t.table;
  c.after = {{"s", value::string("x")}};
  c.seq = csn_builder().add(1).build();
  CHECK(keyless_dead_letter(t, c, "refused").value.value().find("bytes_columns") ==
        std::string::npos);
  c.after.push_back({"b", value::bytes(raw)});
  const std::string v = keyless_dead_letter(t, c, "refused").value.value();
  CHECK(v.find(R"("image":{"s":"x","b":"AP9cIg=="},"bytes_columns":["b"])") != std::string::npos);
}

}  // namespace
}  // namespace sluice
