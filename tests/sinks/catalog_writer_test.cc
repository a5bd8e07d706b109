#include "sinks/postgres/state/catalog_writer.h"

#include <doctest/doctest.h>

namespace sluice {
namespace {

catalog_update update(std::string table, int64_t seq_n, std::string learned) {
  catalog_update u;
  u.table = table_name{"", "S", std::move(table)};
  if (seq_n > 0) u.seq = csn_builder().add(seq_n).build();
  u.learned_from = std::move(learned);
  return u;
}

TEST_CASE("per table the catalog keeps the newest update by CSN, else the last one") {
  const std::vector<catalog_update> updates = {
      update("B", 0, "b1"), update("A", 9, "a9"), update("A", 3, "a3"),
      update("B", 0, "b2"), update("C", 2, "c2"), update("C", 0, "c-none"),
  };
  const auto kept = newest_per_table(updates);
  REQUIRE(kept.size() == 3);
  CHECK(kept[0]->learned_from == "a9");      // the older CSN 3 came later: still older
  CHECK(kept[1]->learned_from == "b2");      // no CSNs: the last write
  CHECK(kept[2]->learned_from == "c-none");  // one without a CSN: the last write
  CHECK(newest_per_table({}).empty());
}

TEST_CASE("catalog columns are stored with their portable type and read back") {
  const std::vector<column_info> columns = {
      {"ID", "NUMBER(10)", column_class::numeric, false, true, {type_id::decimal, 10, 0}},
      {"NOTE",
       "VARCHAR2(20)",
       column_class::text,
       true,
       false,
       {type_id::string, column_type::no_precision, 0, 20}},
      {"X", "", column_class::unknown, true, false, {}}};
  const std::string json = catalog_columns_json(columns);
  CHECK(json == R"j([{"name": "ID", "type": "NUMBER(10)", "class": "numeric", "nullable": false, )j"
                R"j("key": true, "portable_type": "decimal(10,0)"}, )j"
                R"j({"name": "NOTE", "type": "VARCHAR2(20)", "class": "text", "nullable": true, )j"
                R"j("key": false, "portable_type": "string(20)"}, )j"
                R"({"name": "X", "type": "", "class": "unknown", "nullable": true, "key": false, )"
                R"("portable_type": "unknown"}])");
  // load() reads "portable_type" back through stored_portable_type.
  for (const column_info& c : columns) {
    INFO(c.name);
    CHECK(stored_portable_type(c.type.to_text()) == c.type);
  }
}

TEST_CASE("a catalog row stored before portable types reads back with unknown types") {
  // No "portable_type" member: ->> gives NULL. The table catalog derives the type from the
  // source type then (goldengate learn_shape).
  CHECK(stored_portable_type(std::nullopt) == column_type{});
  CHECK(stored_portable_type("not a type") == column_type{});
}

}  // namespace
}  // namespace sluice
