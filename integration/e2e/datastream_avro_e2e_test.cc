// Datastream Avro end to end: `sluice replay` on the fastavro-written fixtures
// (tests/fixtures/datastream_avro, a folder read in path order) into auto-created tables, with
// assertions on the columns' types and the converged rows; and the same fixtures as Kafka
// messages through the real broker (format auto), converging to what their JSON twins give.

#include <doctest/doctest.h>

#include <chrono>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "integration/support/fixture_files.h"
#include "integration/support/replica_checks.h"
#include "integration/support/services.h"
#include "integration/support/sluice_process.h"

namespace sluice::testing {
namespace {

std::string fixtures_dir() {
  return fixture_path("datastream_avro");
}

// The key columns Oracle events do not name.
constexpr const char* oracle_keys =
    "tables:\n"
    "  \"ORCL.HR.EMP\":\n"
    "    primary.key.fields: [EMPNO]\n";

std::string config_for(const std::string& connector, const std::string& schema) {
  return "name: " + connector +
         "\n"
         "kafka:\n"
         "  bootstrap.servers: 127.0.0.1:1\n"
         "topics: [" +
         connector +
         "]\n"
         "format: datastream\n"
         "postgres:\n"
         "  dsn: \"" +
         postgres_dsn() +
         "\"\n"
         "auto.create: true\n"
         "table.name.format: \"" +
         schema +
         ".${table}\"\n"
         "batch.size: 3\n"
         "metrics:\n"
         "  listen: \"\"\n" +
         oracle_keys;
}

std::string type_of(const std::string& schema, const std::string& table,
                    const std::string& column) {
  return str(query("SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = '" +
                   schema + "." + table + "'::regclass AND attname = '" + column + "'")
                 .at(0)
                 .at(0));
}

// The tables sluice created in schema.
std::vector<std::string> tables_of(const std::string& schema) {
  std::vector<std::string> out;
  for (const row& r : query("SELECT tablename FROM pg_tables WHERE schemaname = '" + schema +
                            "' ORDER BY tablename"))
    out.push_back(str(r[0]));
  return out;
}

// Every row of schema.table as text, one per line, sorted, over `types`' columns, each cast
// by `cast` (an SQL expression of the column name).
std::string rows_text(const std::string& schema, const std::string& table,
                      const std::map<std::string, std::string>& types,
                      const std::map<std::string, std::string>& casts) {
  std::string list;
  for (const auto& [column, type] : types) {
    const auto c = casts.find(column);
    list += (list.empty() ? "" : ", ") + (c == casts.end() ? "\"" + column + "\"" : c->second);
  }
  std::string out;
  for (const row& r : query("SELECT row(" + list + ")::text AS r FROM \"" + schema + "\".\"" +
                            table + "\" ORDER BY r"))
    out += str(r[0]) + "\n";
  return out;
}

}  // namespace

TEST_CASE(
    "Datastream Avro from a Kafka topic (format auto, three codecs) converges to what its JSON "
    "twin gives, with the Avro schema's column types") {
  const std::string avro_topic = unique_name("ds_avro");
  const std::string json_topic = unique_name("ds_json");
  create_topic(avro_topic, 2);
  create_topic(json_topic, 2);

  // Each fixture container is one message (several records each), on either partition; the
  // deflate and snappy renderings of mysql_orders deliver its events twice more.
  std::vector<kafka_record> avro, json;
  int partition = 0;
  for (const char* name : {"mysql_backfill", "mysql_orders", "oracle_emp", "postgresql_items"}) {
    kafka_record r;
    r.value = read_file(fixtures_dir() + "/" + name + ".avro");
    r.partition = partition++ % 2;
    avro.push_back(r);
    std::istringstream lines(read_file(fixtures_dir() + "/" + name + ".jsonl"));
    std::string line;
    while (std::getline(lines, line)) {
      if (line.empty()) continue;
      kafka_record j;
      j.value = line;
      j.partition = static_cast<int>(json.size() % 2);
      json.push_back(j);
    }
  }
  for (const char* codec : {"deflate", "snappy"}) {
    kafka_record r;
    r.value = read_file(fixtures_dir() + "/../datastream_avro_codecs/mysql_orders_" +
                        std::string(codec) + ".avro");
    r.partition = partition++ % 2;
    avro.push_back(r);
  }
  produce(avro_topic, avro);
  produce(json_topic, json);

  const std::string avro_schema = unique_name("ds_avro_replica");
  const std::string json_schema = unique_name("ds_json_replica");
  const std::string avro_connector = unique_name("ds_avro");
  const std::string json_connector = unique_name("ds_json");
  const auto extra = [](const std::string& schema) {
    return "auto.create: true\ntable.name.format: \"" + schema + ".${table}\"\n" + oracle_keys;
  };
  sluice_process avro_sluice(basic_config(avro_connector, avro_topic, "auto", extra(avro_schema)),
                             "ds_avro");
  sluice_process json_sluice(
      basic_config(json_connector, json_topic, "datastream", extra(json_schema)), "ds_json");
  REQUIRE_MESSAGE(
      caught_up(json_connector, static_cast<int64_t>(json.size()), std::chrono::seconds(120)),
      json_sluice.log());
  REQUIRE_MESSAGE(
      caught_up(avro_connector, static_cast<int64_t>(avro.size()), std::chrono::seconds(120)),
      avro_sluice.log());
  INFO("avro sluice:\n" << avro_sluice.log());
  CHECK(dead_letter_count(avro_topic) == 0);
  CHECK(dead_letter_count(json_topic) == 0);

  // Oracle's row is inserted, updated and deleted in its one Avro message: no table. Its JSON
  // twin may create the table in one batch and delete the row in a later one: an empty table.
  const std::vector<std::string> tables = tables_of(avro_schema);
  CHECK(tables == std::vector<std::string>{"items", "orders"});
  for (const std::string& table : tables_of(json_schema)) {
    if (table == "items" || table == "orders") continue;
    CHECK_MESSAGE(
        str(query("SELECT count(*) FROM \"" + json_schema + "\".\"" + table + "\"").at(0).at(0)) ==
            "0",
        table);
  }

  // The Avro replica's columns carry the Avro schema's types.
  const auto orders_types = column_types(avro_schema, "orders");
  CHECK(orders_types.at("total") == "numeric(10,2)");
  CHECK(orders_types.at("ordered_on") == "date");
  CHECK(orders_types.at("created_at") == "timestamp(6) with time zone");
  CHECK(orders_types.at("receipt") == "bytea");
  CHECK(column_types(avro_schema, "items").at("item_id") == "uuid");

  // The same rows: the JSON replica's values (JSON has no such types: text, numbers) read as
  // the Avro replica's types; bytes are base64 in Datastream JSON.
  for (const std::string& table : tables) {
    const auto types = column_types(avro_schema, table);
    const auto json_types = column_types(json_schema, table);
    std::map<std::string, std::string> casts;
    for (const auto& [column, type] : types) {
      REQUIRE_MESSAGE(json_types.count(column), column);
      casts[column] =
          type == "bytea" ? "decode(\"" + column + "\", 'base64')" : "\"" + column + "\"::" + type;
    }
    const std::string want = rows_text(json_schema, table, types, casts);
    CHECK(!want.empty());
    CHECK_MESSAGE(rows_text(avro_schema, table, types, {}) == want, table);
  }

  CHECK(avro_sluice.stop() == 0);
  CHECK(json_sluice.stop() == 0);
}

TEST_CASE("replaying Datastream Avro files creates typed tables and converges their rows") {
  const std::string connector = unique_name("avro");
  const std::string schema = unique_name("avro_e2e");
  const std::string config = write_run_file("avro.yaml", config_for(connector, schema));

  for (int run = 0; run < 2; ++run) {  // a second replay changes nothing
    const command_result r =
        run_sluice({"replay", "-c", config, "--file", fixtures_dir(), "--no-progress"});
    INFO("stdout:\n" << r.out << "\nstderr:\n" << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.err.find("dead letter") == std::string::npos);

    // MySQL: backfill 1-3, then insert 1, insert 2, key change 2 -> 3, delete 1.
    const auto orders = query(
        "SELECT id, customer, total, ordered_on, created_at, quantity, paid, "
        "encode(receipt, 'hex') FROM " +
        schema + ".orders ORDER BY id");
    REQUIRE(orders.size() == 1);
    CHECK(str(orders[0][0]) == "3");
    CHECK(str(orders[0][1]) == "grace");
    CHECK(str(orders[0][2]) == "1234567.89");
    CHECK(str(orders[0][3]) == "1969-12-31");
    CHECK(str(orders[0][4]).starts_with("2026-07-13 04:00:59.654321"));
    CHECK(str(orders[0][5]) == "1000000000003");
    CHECK(str(orders[0][6]) == "f");
    CHECK(str(orders[0][7]) == "");  // empty bytes, not NULL

    // PostgreSQL: two inserts, an update, a delete.
    const auto items = query("SELECT item_id, label, weight, starts FROM " + schema + ".items");
    REQUIRE(items.size() == 1);
    CHECK(str(items[0][0]) == "00000000-0000-0000-0000-000000001234");
    CHECK(str(items[0][1]) == "bolt M6");
    CHECK(str(items[0][2]) == "0.130");
    CHECK(str(items[0][3]) == "09:00:00");

    // Oracle: insert, update, delete of one row in one message collapse to a delete of a row
    // the replica never had: no table to create.
    CHECK(str(query("SELECT count(*) FROM pg_tables WHERE schemaname = '" + schema +
                    "' AND tablename = 'emp'")
                  .at(0)
                  .at(0)) == "0");
  }

  CHECK(type_of(schema, "orders", "id") == "integer");
  CHECK(type_of(schema, "orders", "total") == "numeric(10,2)");
  CHECK(type_of(schema, "orders", "ordered_on") == "date");
  CHECK(type_of(schema, "orders", "created_at") == "timestamp(6) with time zone");
  CHECK(type_of(schema, "orders", "quantity") == "bigint");
  CHECK(type_of(schema, "orders", "receipt") == "bytea");
  CHECK(type_of(schema, "items", "item_id") == "uuid");
  CHECK(type_of(schema, "items", "weight") == "numeric(12,3)");
  CHECK(type_of(schema, "items", "starts") == "time(6) without time zone");
}

}  // namespace sluice::testing
