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

}  // namespace
}  // namespace sluice
