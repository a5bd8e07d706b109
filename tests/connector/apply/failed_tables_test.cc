#include "connector/apply/failed_tables.h"

#include <doctest/doctest.h>

#include "connector/metrics/metrics_registry.h"

namespace sluice {

TEST_CASE("failed tables: a DDL failure is listed and counted until rows reach the table") {
  metrics_registry metrics;
  failed_tables failed(metrics);
  apply_stats s;
  s.ddl_failures.push_back({"shop.orders", "42501 permission denied"});
  s.tables.push_back({nullptr, "shop.orders", 0, 0, 0, 3});
  s.tables.push_back({nullptr, "shop.items", 5, 0, 0, 0});
  failed.observe(s, 1000);
  failed.observe(s, 2000);
  auto list = failed.list();
  REQUIRE(list.size() == 1);
  CHECK(list[0].table == "shop.orders");
  CHECK(list[0].since_ms == 1000);
  CHECK(list[0].last_ms == 2000);
  CHECK(list[0].dead_lettered == 6);
  std::string text = metrics.serialize();
  CHECK(text.find("sluice_ddl_failures_total{table=\"shop.orders\"} 2") != std::string::npos);
  CHECK(text.find("sluice_table_ddl_failed{table=\"shop.orders\"} 1") != std::string::npos);

  // Another lane writes rows there: the cause was fixed.
  apply_stats ok;
  ok.tables.push_back({nullptr, "shop.orders", 1, 0, 0, 0});
  failed.observe(ok, 3000);
  CHECK(failed.list().empty());
  text = metrics.serialize();
  CHECK(text.find("sluice_table_ddl_failed{table=\"shop.orders\"} 0") != std::string::npos);
}

}  // namespace sluice
