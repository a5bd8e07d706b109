#include "connector/prepare/transforms/field_selection.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "connector/config/config_loader.h"
#include "connector/prepare/preparer.h"

// fields.*, tables.<source>.fields.* (issue 28): columns left out are never in the batch,
// renames reach the key the merge partitions on, and what cannot apply is a dead letter.

using namespace sluice;

namespace {

// A Datastream event of public.<table> keyed by id, with `columns` (JSON members) beside it.
std::string event(int id, const std::string& columns, const std::string& table = "orders",
                  int lsn = 0) {
  const std::string l = "0/" + std::to_string(lsn ? lsn : 100 + id);
  return R"({"uuid":"u)" + std::to_string(id) +
         R"(","read_timestamp":"2026-01-01T00:00:01.000Z","source_timestamp":1767225600000,)"
         R"("object":"public_)" +
         table +
         R"(","read_method":"postgresql-cdc","stream_name":"s",)"
         R"("schema_key":"k","sort_keys":[1767225600000,")" +
         l + R"("],"source_metadata":{"schema":"public","table":")" + table +
         R"(","is_deleted":false,)"
         R"("change_type":"INSERT","primary_keys":["id"],"lsn":")" +
         l + R"(","tx_id":1},"payload":{"id":)" + std::to_string(id) + columns + "}}";
}

config load(const std::string& extra) {
  load_result r = load_config(R"yaml(name: fields-test
kafka:
  bootstrap.servers: 127.0.0.1:9092
topics: [cdc, other]
postgres:
  dsn: postgresql://sluice@127.0.0.1:5432/replica
format: datastream
errors.tolerance: all
)yaml" + extra,
                              [](std::string_view) { return std::optional<std::string>(); });
  REQUIRE_MESSAGE(r.ok(), r.error_text());
  return r.value();
}

// The message views `value` and `topic`: they outlive it (named strings, literals).
source_message message(const std::string& value, int64_t offset, const char* topic = "cdc") {
  source_message m;
  m.raw.topic = topic;
  m.raw.offset = kafka_offset{offset};
  m.raw.value = value;
  m.timestamp_ms = 1767225600000;
  return m;
}

struct stage {
  explicit stage(const std::string& extra)
      : cfg(load(extra)), decoders(cfg), prepare(cfg, decoders, 1) {}
  config cfg;
  topic_decoders decoders;
  preparer prepare;
};

std::vector<std::string> names(const merged_row& row) {
  std::vector<std::string> out;
  for (const merged_column& c : row.columns)
    out.push_back(c.name);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("excluded columns never reach the batch, and include keeps the key columns unnamed") {
  stage s(
      "fields.exclude: [secret, \"other:note\"]\n"
      "tables:\n  public.orders:\n    fields.include: [qty, note, secret]\n");
  const std::string a_value = event(1, R"(,"qty":2,"note":"n","secret":"s","extra":1)");
  source_message a = message(a_value, 1);
  const std::string b_value = event(2, R"(,"qty":3,"note":"n","secret":"s","extra":1)");
  source_message b = message(b_value, 2, "other");
  CHECK(s.prepare.add(a, 0) == preparer::verdict::decoded);
  CHECK(s.prepare.add(b, 0) == preparer::verdict::decoded);
  std::vector<lane_batch> lanes = s.prepare.take();
  REQUIRE(lanes[0].merged.tables.size() == 1);
  const auto& rows = lanes[0].merged.tables[0].rows;
  REQUIRE(rows.size() == 2);
  // `extra` is not included, `secret` excluded everywhere, `note` only on topic other.
  CHECK(names(rows[0]) == std::vector<std::string>{"id", "note", "qty"});
  CHECK(names(rows[1]) == std::vector<std::string>{"id", "qty"});
}

TEST_CASE("a renamed key column renames the key: changes of one row still collapse") {
  stage s("fields.rename: {id: order_id, qty: quantity}\n");
  const std::string newer_value = event(1, R"(,"qty":5)", "orders", 300);
  source_message newer = message(newer_value, 1);
  const std::string older_value = event(1, R"(,"qty":4)", "orders", 200);
  source_message older = message(older_value, 2);
  REQUIRE(s.prepare.add(newer, 0) == preparer::verdict::decoded);
  REQUIRE(s.prepare.add(older, 0) == preparer::verdict::decoded);
  std::vector<lane_batch> lanes = s.prepare.take();
  REQUIRE(lanes[0].merged.tables.size() == 1);
  const auto& rows = lanes[0].merged.tables[0].rows;
  REQUIRE(rows.size() == 1);
  CHECK(lanes[0].merged.stats.collapsed == 1);
  CHECK(rows[0].key.columns == std::vector<std::string>{"order_id"});
  CHECK(names(rows[0]) == std::vector<std::string>{"order_id", "quantity"});
}

TEST_CASE("a table's renames win over the global ones") {
  stage s(
      "fields.rename: {qty: quantity}\n"
      "tables:\n  public.orders:\n    fields.rename: {qty: amount}\n");
  const std::string a_value = event(1, R"(,"qty":5)");
  source_message a = message(a_value, 1);
  const std::string b_value = event(2, R"(,"qty":5)", "items");
  source_message b = message(b_value, 2);
  s.prepare.add(a, 0);
  s.prepare.add(b, 0);
  std::vector<lane_batch> lanes = s.prepare.take();
  REQUIRE(lanes[0].merged.tables.size() == 2);
  for (const table_rows& t : lanes[0].merged.tables) {
    const std::vector<std::string> want = t.table->name.table == "orders"
                                              ? std::vector<std::string>{"amount", "id"}
                                              : std::vector<std::string>{"id", "quantity"};
    CHECK(names(t.rows[0]) == want);
  }
}

TEST_CASE("a key column excluded, or two columns onto one name, make a dead letter") {
  stage s("fields.exclude: [\"cdc:id\"]\nfields.rename: {a: b}\n");
  const std::string keyed_value = event(1, R"(,"qty":5)");
  source_message keyed = message(keyed_value, 1);
  CHECK(s.prepare.add(keyed, 0) == preparer::verdict::dead_lettered);
  CHECK(s.prepare.last_reason().find("field_rule: field rules: id is a key column of") !=
        std::string::npos);
  const std::string clash_value = event(2, R"(,"a":1,"b":2)");
  source_message clash = message(clash_value, 2, "other");
  CHECK(s.prepare.add(clash, 0) == preparer::verdict::dead_lettered);
  CHECK(s.prepare.last_reason().find("renamed onto b") != std::string::npos);
  const std::string fine_value = event(3, R"(,"a":1)");
  source_message fine = message(fine_value, 3, "other");
  CHECK(s.prepare.add(fine, 0) == preparer::verdict::decoded);
  std::vector<lane_batch> lanes = s.prepare.take();
  CHECK(lanes[0].dead_letters.size() == 2);
  REQUIRE(lanes[0].merged.tables.size() == 1);  // nothing of the refused messages
  CHECK(lanes[0].merged.tables[0].rows.size() == 1);
  CHECK(names(lanes[0].merged.tables[0].rows[0]) == std::vector<std::string>{"b", "id"});
}
