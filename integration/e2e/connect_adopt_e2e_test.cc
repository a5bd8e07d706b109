// A replica a Debezium JDBC sink built, taken over in place (issue 28) against the real broker
// and PostgreSQL: its table is found by Debezium's naming (the topic, dots replaced by `_`),
// sluice adds only its own columns (auto.evolve off, as schema.evolution=none imports), the
// rows the connector wrote (no CSN) are updated and deleted, and a column the connector's
// field.exclude.list left out stays out.

#include <doctest/doctest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "integration/support/replica_checks.h"
#include "integration/support/services.h"
#include "integration/support/sluice_process.h"

namespace sluice::testing {
namespace {

std::string debezium(const std::string& table, const std::string& op, const std::string& before,
                     const std::string& after, int64_t lsn) {
  return R"({"before":)" + before + R"(,"after":)" + after +
         R"(,"source":{"version":"3.0.0.Final","connector":"postgresql","name":"pg","ts_ms":1705318200123,"snapshot":"false","db":"shop","sequence":"[\")" +
         std::to_string(lsn) + R"(\",\")" + std::to_string(lsn) +
         R"(\"]","schema":"public","table":")" + table + R"(","txId":555,"lsn":)" +
         std::to_string(lsn) + R"(,"xmin":null},"op":")" + op + R"(","ts_ms":1705318200456})";
}

kafka_record dbz(int64_t id, std::optional<std::string> value) {
  return {R"({"id":)" + std::to_string(id) + "}", std::move(value), -1};
}

std::map<std::string, std::string> rows(const std::string& table) {
  std::map<std::string, std::string> out;
  for (const auto& r : query("SELECT id, name || '/' || qty FROM public.\"" + table + "\""))
    out[str(r[0])] = str(r[1]);
  return out;
}

}  // namespace

TEST_CASE("a Debezium JDBC sink's replica is written in place: its names, its rows, its fields") {
  const std::string server = unique_name("dbserver");
  const std::string source_table = unique_name("orders");
  const std::string topic = server + ".public." + source_table;
  const std::string replica = server + "_public_" + source_table;  // collection.name.format
  const std::string connector = unique_name("adopt");
  create_topic(topic, 1);
  // What the connector built and wrote (schema.evolution=basic, primary.key.mode=record_key,
  // field.exclude.list=...:note): the stream's columns less note, no sluice column.
  execute("CREATE TABLE public.\"" + replica + "\" (id bigint PRIMARY KEY, name text, qty bigint)");
  execute("INSERT INTO public.\"" + replica + "\" VALUES (1, 'n1', 1), (2, 'n2', 1), (3, 'n3', 1)");

  const std::vector<kafka_record> records = {
      dbz(2,
          debezium(source_table, "u", "null", R"({"id":2,"name":"two","qty":5,"note":"x"})", 200)),
      dbz(3,
          debezium(source_table, "d", R"({"id":3,"name":"n3","qty":1,"note":"x"})", "null", 201)),
      dbz(3, std::nullopt),
      dbz(5,
          debezium(source_table, "c", "null", R"({"id":5,"name":"n5","qty":7,"note":"x"})", 202))};
  produce(topic, records);
  sluice_process p(basic_config(connector, topic, "debezium",
                                "table.name.style: debezium\n"
                                "auto.create: false\n"
                                "auto.evolve: false\n"
                                "fields.exclude: [\"" +
                                    topic + ":note\"]\n"));
  REQUIRE_MESSAGE(caught_up(connector, static_cast<int64_t>(records.size())), p.log());
  CHECK(p.stop() == 0);

  CHECK_MESSAGE(dead_letter_count(topic) == 0, dead_letter_reasons(topic));
  const auto now = rows(replica);
  CHECK(now == std::map<std::string, std::string>{{"1", "n1/1"}, {"2", "two/5"}, {"5", "n5/7"}});
  // Only sluice's own columns were added; nothing was created beside the replica.
  CHECK(count_of("SELECT count(*) FROM information_schema.columns WHERE table_name = '" + replica +
                 "' AND column_name = 'note'") == 0);
  CHECK(count_of("SELECT count(*) FROM information_schema.columns WHERE table_name = '" + replica +
                 "' AND column_name = '_sluice_csn'") == 1);
  CHECK(count_of("SELECT count(*) FROM information_schema.tables WHERE table_name LIKE '%" +
                 source_table + "%'") == 1);
}

}  // namespace sluice::testing
