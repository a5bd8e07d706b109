// Datastream Avro end to end, with PostgreSQL only: `sluice replay` on the fastavro-written
// fixtures (tests/fixtures/datastream_avro, a folder read in path order) into auto-created
// tables; assertions on the columns' types and the converged rows.

#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include "integration/support/replica_checks.h"
#include "integration/support/services.h"
#include "integration/support/sluice_process.h"

namespace sluice::testing {
namespace {

std::string fixtures_dir() {
  const char* source = std::getenv("SLUICE_SOURCE_DIR");
  REQUIRE(source);
  return std::string(source) + "/tests/fixtures/datastream_avro";
}

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
         "  listen: \"\"\n"
         "tables:\n"
         "  \"ORCL.HR.EMP\":\n"
         "    primary.key.fields: [EMPNO]\n";
}

std::string type_of(const std::string& schema, const std::string& table,
                    const std::string& column) {
  return str(query("SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = '" +
                   schema + "." + table + "'::regclass AND attname = '" + column + "'")
                 .at(0)
                 .at(0));
}

}  // namespace

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
