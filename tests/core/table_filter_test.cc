#include "core/catalog/table_filter.h"

#include <doctest/doctest.h>

#include <stdexcept>

namespace sluice {

TEST_CASE("table filter: the whole qualified name must match, exclude wins over include") {
  table_filter f({"shop\\.public\\..*", "crm\\.customers"}, {".*\\.audit_.*"});
  CHECK(f.allows(table_name{"shop", "public", "orders"}));
  CHECK_FALSE(f.allows(table_name{"shop", "public", "audit_log"}));
  CHECK(f.allows(table_name{"", "crm", "customers"}));
  // A partial match is not a match: the pattern must cover the whole name.
  CHECK_FALSE(f.allows(table_name{"", "crm", "customers_old"}));
  CHECK_FALSE(f.allows(table_name{"x", "shop", "public"}));
  CHECK_FALSE(f.allows(table_name{"", "", "orders"}));
}

TEST_CASE("table filter: no pattern keeps every table, exclude alone removes only its own") {
  table_filter all;
  CHECK(all.keeps_all());
  CHECK(all.allows(table_name{"", "", "anything"}));
  table_filter some({}, {"db\\.tmp_.*"});
  CHECK_FALSE(some.keeps_all());
  CHECK(some.allows(table_name{"db", "", "orders"}));
  CHECK_FALSE(some.allows(table_name{"db", "", "tmp_1"}));
}

TEST_CASE("table filter: answers per catalog entry are cached and agree with the name") {
  table_catalog catalog;
  table_entry* kept = catalog.intern(table_name{"", "s", "a"});
  table_entry* dropped = catalog.intern(table_name{"", "s", "b"});
  table_filter f({"s\\.a"}, {});
  for (int i = 0; i < 3; ++i) {
    CHECK(f.allows(*kept));
    CHECK_FALSE(f.allows(*dropped));
  }
}

TEST_CASE("table filter: a bad pattern is refused, naming it") {
  CHECK(table_filter::pattern_error("a(b").has_value());
  CHECK_FALSE(table_filter::pattern_error("a(b)").has_value());
  CHECK_THROWS_AS(table_filter({"ok"}, {"[z-a]"}), std::invalid_argument);
}

}  // namespace sluice
