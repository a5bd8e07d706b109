#include "core/catalog/table_catalog.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace sluice {

TEST_CASE("an unknown key is asked of the resolver once it answers, with the table and topic") {
  table_catalog catalog;
  table_entry* t = catalog.intern({"", "public", "accounts"});
  CHECK_FALSE(catalog.resolve_key(*t, "cdc"));  // no resolver: unknown

  std::vector<std::string> asked;
  std::vector<std::string> answer;
  catalog.set_key_resolver([&](const table_name& source, std::string_view topic) {
    asked.push_back(source.qualified() + "@" + std::string(topic));
    return answer;
  });
  CHECK_FALSE(catalog.resolve_key(*t, "cdc"));  // the target has no key (yet)
  CHECK(t->key_columns.empty());
  answer = {"tenant", "id"};
  CHECK(catalog.resolve_key(*t, "cdc"));
  CHECK(t->key_columns == std::vector<std::string>{"tenant", "id"});
  CHECK(catalog.resolve_key(*t, "cdc"));  // known now: not asked again
  CHECK(asked == std::vector<std::string>{"public.accounts@cdc", "public.accounts@cdc"});

  // A configured key is never replaced.
  catalog.configure_key("public.orders", {"order_id"});
  table_entry* orders = catalog.intern({"", "public", "orders"});
  CHECK(catalog.resolve_key(*orders, "cdc"));
  CHECK(orders->key_columns == std::vector<std::string>{"order_id"});
  CHECK(asked.size() == 2);
}

}  // namespace sluice
