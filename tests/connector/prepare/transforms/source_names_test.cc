// Key columns read from the target answered in the source's names (issue 28): the target's
// table is keyed by the columns as ReplaceField and fields.* rename them, the decoder finds a
// key in the source's image, so the renames are undone — fields.* first, then the ReplaceFields
// in reverse order, as the prepare stage applied them the other way.
#include <doctest/doctest.h>

#include <optional>
#include <string>

#include "connector/config/config_loader.h"
#include "connector/prepare/transforms/field_selection.h"
#include "connector/prepare/transforms/transform_chain.h"

using namespace sluice;

namespace {

config load(const std::string& extra) {
  load_result r = load_config(R"yaml(name: source-names
kafka:
  bootstrap.servers: 127.0.0.1:9092
topics: [shop.orders]
postgres:
  dsn: postgresql://sluice@127.0.0.1:5432/replica
)yaml" + extra,
                              [](std::string_view) { return std::optional<std::string>(); });
  REQUIRE_MESSAGE(r.ok(), r.error_text());
  return r.value();
}

}  // namespace

TEST_CASE("a renamed key column is traced back through fields.* and the ReplaceFields") {
  const config c = load(
      "transforms: [first, second]\n"
      "transforms.first.type: ReplaceField\n"
      "transforms.first.renames: [\"id:order_id\"]\n"
      "transforms.second.type: ReplaceField\n"
      "transforms.second.renames: [\"order_id:oid\"]\n"
      "fields.rename: {oid: key_id, qty: quantity}\n"
      "tables:\n  public.lines:\n    fields.rename: {line: line_no}\n");
  transform_chain chain(c);
  field_selection fields(c);
  const table_name orders{"", "public", "orders"};
  const auto source = [&](const table_name& t, const std::string& target) {
    return chain.source_name(fields.source_name(t, "shop.orders", target));
  };
  CHECK(source(orders, "key_id") == "id");  // id -> order_id -> oid -> key_id
  CHECK(source(orders, "quantity") == "qty");
  CHECK(source(orders, "other") == "other");      // not renamed
  CHECK(source(orders, "line_no") == "line_no");  // another table's rename
  CHECK(source({"", "public", "lines"}, "line_no") == "line");
}
