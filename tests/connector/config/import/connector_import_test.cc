#include "connector/config/import/connector_import.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "connector/config/config_loader.h"
#include "connector/config/import/connect_config.h"
#include "connector/config/import/jdbc_url.h"

// `sluice config import` (issue 28) on the peers' documented examples: the YAML it writes loads
// as it is, unset keys take the peer's defaults, secrets stay out, nothing is dropped silently.

using namespace sluice;

namespace {

import_result import_text(const std::string& text) {
  const connect_config_result read = read_connect_config(text);
  REQUIRE_MESSAGE(read.config, read.error);
  return import_connector(*read.config, "connector.json");
}

// The imported YAML, loaded as `sluice run` would (its variables set).
config load(const import_result& r) {
  REQUIRE_MESSAGE(r.error.empty(), r.error);
  load_result l = load_config(r.yaml, [](std::string_view name) -> std::optional<std::string> {
    if (name == "KAFKA_BOOTSTRAP_SERVERS") return "127.0.0.1:9092";
    return "set";
  });
  REQUIRE_MESSAGE(l.ok(), (l.error_text() + "\n" + r.yaml));
  return l.value();
}

bool left_out(const import_result& r, std::string_view key) {
  for (const auto& u : r.left_out)
    if (u.key.starts_with(key)) return true;
  return false;
}

bool has_variable(const import_result& r, std::string_view name) {
  for (const auto& [n, where] : r.variables)
    if (n == name) return true;
  return false;
}

// Debezium's JDBC sink documentation, "Example connector configuration".
const std::string debezium_example = R"({
  "name": "jdbc-connector",
  "config": {
    "connector.class": "io.debezium.connector.jdbc.JdbcSinkConnector",
    "tasks.max": "1",
    "connection.url": "jdbc:postgresql://localhost/db",
    "connection.username": "pguser",
    "connection.password": "pgpassword",
    "insert.mode": "upsert",
    "delete.enabled": "true",
    "primary.key.mode": "record_key",
    "schema.evolution": "basic",
    "use.time.zone": "UTC",
    "topics": "orders"
  }
})";

}  // namespace

TEST_CASE("Debezium's documented example imports whole and loads as written") {
  const import_result r = import_text(debezium_example);
  CHECK(r.peer == "Debezium JDBC sink");
  CHECK(r.left_out.empty());
  const config c = load(r);
  CHECK(c.name == "jdbc-connector");
  CHECK(c.topics == std::vector<std::string>{"orders"});
  CHECK(c.name_style == table_name_style::debezium);
  CHECK(c.table_name_format == "${topic}");
  CHECK(c.identifier_case == letter_case::lower);
  CHECK(c.auto_create);
  CHECK(c.auto_evolve);
  CHECK(c.deletes.enabled);
  CHECK(c.errors.tolerance == error_tolerance::none);  // Connect's default, not sluice's
  CHECK(c.kafka_property("group.id") == "sluice-jdbc-connector");
  CHECK(c.kafka_property("auto.offset.reset") == "earliest");
  CHECK(c.takeover_group == "connect-jdbc-connector");
  CHECK(c.postgres.dsn == "postgresql://pguser@localhost/db?sslmode=prefer");
  // The password is never written: libpq reads PGPASSWORD.
  CHECK(r.yaml.find("pgpassword") == std::string::npos);
  CHECK(has_variable(r, "PGPASSWORD"));
  CHECK(r.yaml.find("# schema.evolution=basic\nauto.create: true") != std::string::npos);
}

TEST_CASE("a key the connector leaves unset takes that peer's default, written out") {
  const import_result r = import_text(R"({"name": "minimal", "config": {
    "connector.class": "io.debezium.connector.jdbc.JdbcSinkConnector",
    "connection.url": "jdbc:postgresql://db:5432/replica", "topics": "a,b"}})");
  const config c = load(r);
  CHECK_FALSE(c.deletes.enabled);   // delete.enabled=false
  CHECK_FALSE(c.truncate_enabled);  // truncate.enabled=false
  CHECK_FALSE(c.auto_create);       // schema.evolution=none
  CHECK_FALSE(c.auto_evolve);
  CHECK(c.identifier_case == letter_case::lower);  // quote.identifiers=false
  CHECK(c.topics == std::vector<std::string>{"a", "b"});
  // The peer's default modes: an append-only table, every change a row of its own.
  CHECK(c.insert == insert_mode::insert);
  CHECK(c.primary_key_mode == key_mode::none);
  CHECK(r.left_out.empty());
  CHECK(r.yaml.find("delete.enabled unset: Debezium JDBC sink's default, false") !=
        std::string::npos);
}

TEST_CASE("key and insert modes are imported as the peers define them") {
  const import_result r = import_text(R"({"name": "m", "config": {
    "connector.class": "io.confluent.connect.jdbc.JdbcSinkConnector",
    "connection.url": "jdbc:postgresql://db:5432/replica", "topics": "a",
    "insert.mode": "update", "pk.mode": "record_value", "pk.fields": "tenant, id"}})");
  const config c = load(r);
  CHECK(c.insert == insert_mode::update);
  CHECK(c.primary_key_mode == key_mode::record_value);
  CHECK(c.primary_key_fields == std::vector<std::string>{"tenant", "id"});
  CHECK(r.left_out.empty());

  const import_result k = import_text(R"({"name": "k", "config": {
    "connector.class": "io.debezium.connector.jdbc.JdbcSinkConnector",
    "connection.url": "jdbc:postgresql://db:5432/replica", "topics": "a",
    "insert.mode": "insert", "primary.key.mode": "kafka",
    "primary.key.fields": "t,p,o"}})");
  CHECK(load(k).primary_key_mode == key_mode::kafka);
  CHECK(left_out(k, "primary.key.fields=t,p,o"));  // custom position names: not sluice's

  const import_result d = import_text(R"({"name": "d", "config": {
    "connector.class": "io.debezium.connector.jdbc.JdbcSinkConnector",
    "connection.url": "jdbc:postgresql://db:5432/replica", "topics": "a",
    "insert.mode": "insert", "primary.key.mode": "record_key", "delete.enabled": "true"}})");
  CHECK_FALSE(load(d).deletes.enabled);
  CHECK(left_out(d, "delete.enabled=true"));  // an insert-mode table applies no delete
}

TEST_CASE("a Confluent .properties config: its spellings, its defaults, its secrets") {
  const import_result r = import_text(R"(# Confluent's JDBC sink quickstart, for PostgreSQL
name=test-sink
connector.class=io.confluent.connect.jdbc.JdbcSinkConnector
tasks.max=2
topics=orders
connection.url=jdbc:postgresql://pg.example:5432/postgres?ssl=true&sslrootcert=/etc/ca.pem
connection.user=${env:PG_USER}
connection.password=${file:/opt/secrets/pg.properties:password}
pk.mode=record_key
insert.mode=upsert
fields.whitelist=id,\
   name
value.converter=io.confluent.connect.avro.AvroConverter
value.converter.schema.registry.url=http://registry:8081
consumer.override.max.poll.interval.ms=600000
)");
  CHECK(r.peer == "Confluent JDBC sink");
  CHECK(r.left_out.empty());
  const config c = load(r);
  CHECK(c.name_style == table_name_style::confluent);
  CHECK(c.identifier_case == letter_case::preserve);  // quote.sql.identifiers=always
  CHECK_FALSE(c.auto_create);
  CHECK_FALSE(c.auto_evolve);
  CHECK(c.apply_lanes == 2);
  CHECK(c.fields.include == std::vector<std::string>{"id", "name"});
  CHECK(c.schema_registry.url == "http://registry:8081");
  CHECK(c.kafka_property("max.poll.interval.ms") == "600000");
  // ssl=true alone: pgjdbc verifies certificate and host, and so must libpq.
  CHECK(r.yaml.find("sslmode=verify-full&sslrootcert=%2Fetc%2Fca.pem") != std::string::npos);
  // ${env:X} is sluice's ${X}; a FileConfigProvider key becomes a named variable.
  CHECK(r.yaml.find("postgresql://${PG_USER}@pg.example:5432") != std::string::npos);
  CHECK(has_variable(r, "PG_USER"));
  CHECK(has_variable(r, "PGPASSWORD"));
}

TEST_CASE("TLS is never weaker than the URL asks") {
  CHECK(jdbc_to_libpq("jdbc:postgresql://h/d?sslmode=require", "u").uri ==
        "postgresql://u@h/d?sslmode=require");
  CHECK(jdbc_to_libpq("jdbc:postgresql://h/d?ssl=true", "").uri ==
        "postgresql://h/d?sslmode=verify-full");
  CHECK(jdbc_to_libpq("jdbc:postgresql://h/d?sslmode=verify-ca&ssl=true", "").uri ==
        "postgresql://h/d?sslmode=verify-ca");
  CHECK(jdbc_to_libpq("jdbc:postgresql://h1:5432,h2:5433/d", "").uri ==
        "postgresql://h1:5432,h2:5433/d?sslmode=prefer");
  CHECK_FALSE(jdbc_to_libpq("jdbc:mysql://h/d", "").error.empty());
  CHECK_FALSE(jdbc_to_libpq("jdbc:postgresql://h/d?x=%zz", "").error.empty());
}

TEST_CASE("transforms and keys sluice cannot do yet are listed, with why") {
  const import_result r = import_text(R"json({"name": "t", "config": {
    "connector.class": "io.debezium.connector.jdbc.JdbcSinkConnector",
    "connection.url": "jdbc:postgresql://db/replica", "topics": "a",
    "insert.mode": "upsert", "primary.key.mode": "record_key",
    "transforms": "unwrap,route",
    "transforms.unwrap.type": "io.debezium.transforms.ExtractNewRecordState",
    "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
    "transforms.route.regex": "(.*)", "transforms.route.replacement": "x_$1",
    "use.time.zone": "Europe/Paris", "no.such.key": "1",
    "consumer.override.max.poll.records": "10"}})json");
  CHECK_FALSE(left_out(r, "transforms.unwrap"));  // sluice reads the envelope itself
  CHECK_FALSE(left_out(r, "transforms.route"));   // sluice's own RegexRouter
  CHECK(left_out(r, "use.time.zone=Europe/Paris"));
  CHECK(left_out(r, "no.such.key=1"));
  CHECK(left_out(r, "consumer.override.max.poll.records=10"));  // a Java client property
  load(r);                                                      // still loads
}

TEST_CASE("the transforms sluice runs are imported as they run in Connect, the others listed") {
  // The chain of Debezium's and Confluent's documentation, with what sluice cannot run yet.
  const import_result r = import_text(R"json({"name": "t", "config": {
    "connector.class": "io.confluent.connect.jdbc.JdbcSinkConnector",
    "connection.url": "jdbc:postgresql://db/replica", "topics": "shop.orders",
    "insert.mode": "upsert", "pk.mode": "record_key",
    "transforms": "dropPrefix, fields,filter,keyed, unwrap, headers",
    "transforms.dropPrefix.type": "org.apache.kafka.connect.transforms.RegexRouter",
    "transforms.dropPrefix.regex": "shop\\.(.*)",
    "transforms.dropPrefix.replacement": "$1_v2",
    "transforms.fields.type": "org.apache.kafka.connect.transforms.ReplaceField$Value",
    "transforms.fields.exclude": "secret, internal",
    "transforms.fields.renames": "cust:customer_id,amt:amount",
    "transforms.filter.type": "org.apache.kafka.connect.transforms.Filter",
    "transforms.filter.predicate": "isTombstone",
    "transforms.keyed.type": "org.apache.kafka.connect.transforms.ReplaceField$Key",
    "transforms.keyed.include": "id",
    "transforms.unwrap.type": "io.debezium.transforms.ExtractNewRecordState",
    "transforms.unwrap.delete.handling.mode": "rewrite",
    "transforms.unwrap.add.fields": "op,source.ts_ms",
    "transforms.headers.type": "io.debezium.transforms.ExtractNewRecordState",
    "transforms.headers.add.headers": "db",
    "predicates": "isTombstone",
    "predicates.isTombstone.type": "org.apache.kafka.connect.transforms.predicates.RecordIsTombstone"
  }})json");
  CHECK(left_out(r, "transforms.keyed"));    // ReplaceField$Key
  CHECK(left_out(r, "transforms.headers"));  // add.headers: no Kafka record to add them to
  CHECK_FALSE(left_out(r, "transforms.unwrap"));
  CHECK_FALSE(left_out(r, "transforms.filter"));
  CHECK_FALSE(left_out(r, "predicates"));
  CHECK_FALSE(left_out(r, "transforms.dropPrefix"));
  CHECK_FALSE(left_out(r, "transforms.fields"));
  const config c = load(r);
  REQUIRE(c.transforms == std::vector<std::string>{"dropPrefix", "fields", "filter", "unwrap"});
  CHECK(c.transform_settings.at("unwrap").delete_handling_mode == "rewrite");
  CHECK(c.transform_settings.at("unwrap").add_fields ==
        std::vector<std::string>{"op", "source.ts_ms"});
  CHECK(c.transform_settings.at("filter").predicate == "isTombstone");
  CHECK(c.predicate_settings.at("isTombstone").type ==
        "org.apache.kafka.connect.transforms.predicates.RecordIsTombstone");
  const transform_config& route = c.transform_settings.at("dropPrefix");
  CHECK(route.regex == "shop\\.(.*)");
  CHECK(route.replacement == "$1_v2");
  const transform_config& fields = c.transform_settings.at("fields");
  CHECK(fields.exclude == std::vector<std::string>{"secret", "internal"});
  CHECK(fields.renames == std::vector<std::string>{"cust:customer_id", "amt:amount"});
  CHECK(r.yaml.find("# transforms.fields.renames\n") != std::string::npos);
}

TEST_CASE("a chain of five transforms from the peers' documentation is imported whole") {
  // Confluent's documented examples of Filter under HasHeaderKey, InsertField, MaskField,
  // ValueToKey and RegexRouter under TopicNameMatches, as one chain.
  const import_result r = import_text(R"json({"name": "t", "config": {
    "connector.class": "io.confluent.connect.jdbc.JdbcSinkConnector",
    "connection.url": "jdbc:postgresql://db/replica", "topics": "shop.orders,shop.test",
    "insert.mode": "upsert", "pk.mode": "record_key",
    "transforms": "dropTest,insert,mask,key,route",
    "transforms.dropTest.type": "org.apache.kafka.connect.transforms.Filter",
    "transforms.dropTest.predicate": "isTest",
    "transforms.insert.type": "org.apache.kafka.connect.transforms.InsertField$Value",
    "transforms.insert.static.field": "MessageSource",
    "transforms.insert.static.value": "Kafka Connect framework",
    "transforms.insert.offset.field": "kafka_offset!",
    "transforms.mask.type": "org.apache.kafka.connect.transforms.MaskField$Value",
    "transforms.mask.fields": "string_field, int_field",
    "transforms.mask.replacement": "0",
    "transforms.key.type": "org.apache.kafka.connect.transforms.ValueToKey",
    "transforms.key.fields": "id",
    "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
    "transforms.route.regex": "shop\\.(.*)", "transforms.route.replacement": "$1",
    "transforms.route.predicate": "notTest", "transforms.route.negate": "true",
    "predicates": "isTest,notTest,unused",
    "predicates.isTest.type": "org.apache.kafka.connect.transforms.predicates.HasHeaderKey",
    "predicates.isTest.name": "test-run",
    "predicates.notTest.type": "org.apache.kafka.connect.transforms.predicates.TopicNameMatches",
    "predicates.notTest.pattern": ".*\\.test",
    "predicates.unused.type": "org.apache.kafka.connect.transforms.predicates.RecordIsTombstone"
  }})json");
  for (const char* name :
       {"transforms.dropTest", "transforms.insert", "transforms.mask", "transforms.key",
        "transforms.route", "predicates.isTest", "predicates.notTest"})
    CHECK_FALSE_MESSAGE(left_out(r, name), name);
  CHECK(left_out(r, "predicates.unused"));  // configured, used by no transform
  const config c = load(r);
  REQUIRE(c.transforms == std::vector<std::string>{"dropTest", "insert", "mask", "key", "route"});
  CHECK(c.transform_settings.at("insert").offset_field == "kafka_offset!");
  CHECK(c.transform_settings.at("insert").static_value == "Kafka Connect framework");
  CHECK(c.transform_settings.at("mask").fields ==
        std::vector<std::string>{"string_field", "int_field"});
  CHECK(c.transform_settings.at("key").fields == std::vector<std::string>{"id"});
  CHECK(c.transform_settings.at("route").negate);
  CHECK(c.predicate_settings.at("isTest").name == "test-run");
  CHECK(c.predicate_settings.at("notTest").pattern == ".*\\.test");
  CHECK(c.predicates == std::vector<std::string>{"isTest", "notTest"});
}

TEST_CASE("Debezium's documented ByLogicalTableRouter example is imported and loads") {
  // Debezium's documentation: the shards customers_shard1, _shard2 ... onto one topic, the
  // shard's number as the key's shard_id.
  const import_result r = import_text(R"json({"name": "t", "config": {
    "connector.class": "io.debezium.connector.jdbc.JdbcSinkConnector",
    "connection.url": "jdbc:postgresql://db/replica",
    "topics": "myserver.mydb.customers_shard1,myserver.mydb.customers_shard2",
    "insert.mode": "upsert", "primary.key.mode": "record_key",
    "transforms": "Reroute",
    "transforms.Reroute.type": "io.debezium.transforms.ByLogicalTableRouter",
    "transforms.Reroute.topic.regex": "(.*)customers_shard(.*)",
    "transforms.Reroute.topic.replacement": "$1customers_all_shards",
    "transforms.Reroute.key.field.name": "shard_id",
    "transforms.Reroute.key.field.regex": "(.*)customers_shard(.*)",
    "transforms.Reroute.key.field.replacement": "$2"
  }})json");
  CHECK_FALSE(left_out(r, "transforms.Reroute"));
  const config c = load(r);
  REQUIRE(c.transforms == std::vector<std::string>{"Reroute"});
  const transform_config& t = c.transform_settings.at("Reroute");
  CHECK(t.topic_regex == "(.*)customers_shard(.*)");
  CHECK(t.topic_replacement == "$1customers_all_shards");
  CHECK(t.key_field_name == "shard_id");
  CHECK(t.key_field_regex == "(.*)customers_shard(.*)");
  CHECK(t.key_field_replacement == "$2");
  CHECK(t.key_enforce_uniqueness.empty());  // unset: Debezium's true
}

TEST_CASE("a ByLogicalTableRouter the loader would refuse is listed, not written") {
  const import_result r = import_text(R"json({"name": "t", "config": {
    "connector.class": "io.debezium.connector.jdbc.JdbcSinkConnector",
    "connection.url": "jdbc:postgresql://db/replica", "topics": "a",
    "transforms": "byHeader,badRegex,noKeyReplacement",
    "transforms.byHeader.type": "io.debezium.transforms.ByLogicalTableRouter",
    "transforms.byHeader.topic.regex": "(.*)", "transforms.byHeader.topic.replacement": "x",
    "transforms.byHeader.predicate": "h",
    "transforms.badRegex.type": "io.debezium.transforms.ByLogicalTableRouter",
    "transforms.badRegex.topic.regex": "(?<=a)b", "transforms.badRegex.topic.replacement": "x",
    "transforms.noKeyReplacement.type": "io.debezium.transforms.ByLogicalTableRouter",
    "transforms.noKeyReplacement.topic.regex": "(.*)",
    "transforms.noKeyReplacement.topic.replacement": "x",
    "transforms.noKeyReplacement.key.field.regex": "(.*)",
    "predicates": "h", "predicates.h.type": "HasHeaderKey", "predicates.h.name": "n"
  }})json");
  for (const char* name :
       {"transforms.byHeader", "transforms.badRegex", "transforms.noKeyReplacement"})
    CHECK_MESSAGE(left_out(r, name), name);
  CHECK(load(r).transforms.empty());
}

TEST_CASE("a transform sluice's loader would refuse is listed, not written") {
  const import_result r = import_text(R"json({"name": "t", "config": {
    "connector.class": "io.debezium.connector.jdbc.JdbcSinkConnector",
    "connection.url": "jdbc:postgresql://db/replica", "topics": "a",
    "transforms": "look,groups,option,when",
    "transforms.look.type": "org.apache.kafka.connect.transforms.RegexRouter",
    "transforms.look.regex": "(?<=x)a", "transforms.look.replacement": "b",
    "transforms.groups.type": "org.apache.kafka.connect.transforms.RegexRouter",
    "transforms.groups.regex": "(a)", "transforms.groups.replacement": "$2",
    "transforms.option.type": "org.apache.kafka.connect.transforms.ReplaceField$Value",
    "transforms.option.replace.null.with.default": "false",
    "transforms.when.type": "org.apache.kafka.connect.transforms.RegexRouter",
    "transforms.when.regex": "(.*)", "transforms.when.replacement": "$1",
    "transforms.when.predicate": "p", "transforms.when.negate": "true"
  }})json");
  for (const char* name :
       {"transforms.look", "transforms.groups", "transforms.option", "transforms.when"})
    CHECK_MESSAGE(left_out(r, name), name);
  CHECK(load(r).transforms.empty());
}

TEST_CASE("a client secret in consumer.override.* is never copied nor printed") {
  const import_result r = import_text(R"json({"name": "t", "config": {
    "connector.class": "io.debezium.connector.jdbc.JdbcSinkConnector",
    "connection.url": "jdbc:postgresql://db/replica", "topics": "a",
    "consumer.override.security.protocol": "SASL_SSL",
    "consumer.override.ssl.key.password": "s3cret-key",
    "consumer.override.sasl.jaas.config":
      "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"u\" password=\"s3cret-jaas\";",
    "consumer.override.sasl.password": "${env:KAFKA_PW}",
    "some.vendor.secret": "s3cret-other"
  }})json");
  CHECK(r.yaml.find("s3cret") == std::string::npos);
  for (const auto& u : r.left_out) {
    CHECK_MESSAGE(u.key.find("s3cret") == std::string::npos, u.key);
    CHECK_MESSAGE(u.why.find("s3cret") == std::string::npos, u.why);
  }
  CHECK(left_out(r, "consumer.override.sasl.jaas.config=***"));
  CHECK(left_out(r, "some.vendor.secret=***"));
  CHECK(has_variable(r, "SLUICE_KAFKA_SSL_KEY_PASSWORD"));
  CHECK(has_variable(r, "KAFKA_PW"));  // a provider stays the connector's own variable
  const config c = load(r);
  CHECK(std::find(c.kafka.begin(), c.kafka.end(),
                  std::pair<std::string, std::string>{"security.protocol", "SASL_SSL"}) !=
        c.kafka.end());
}

TEST_CASE("currentSchema qualifies unqualified table names, and tasks.max is capped at 64 lanes") {
  const import_result r = import_text(R"json({"name": "t", "config": {
    "connector.class": "io.debezium.connector.jdbc.JdbcSinkConnector",
    "connection.url": "jdbc:postgresql://db/replica?currentSchema=app", "topics": "a",
    "insert.mode": "upsert", "primary.key.mode": "record_key", "tasks.max": "100"}})json");
  const config c = load(r);
  CHECK(c.table_name_format == "app.${topic}");
  CHECK(c.apply_lanes == 64);
  CHECK_FALSE(left_out(r, "connection.url currentSchema"));
  // A format naming its schema is left as it is; the URL's schema does not apply to it.
  const import_result named = import_text(R"json({"name": "t", "config": {
    "connector.class": "io.confluent.connect.jdbc.JdbcSinkConnector",
    "connection.url": "jdbc:postgresql://db/replica?currentSchema=app,public", "topics": "a",
    "table.name.format": "audit.${topic}"}})json");
  CHECK(load(named).table_name_format == "audit.${topic}");
  CHECK(left_out(named, "connection.url currentSchema=app,public"));
}

TEST_CASE("a jdbc:mariadb URL becomes mariadb.dsn, its password a variable, never copied") {
  const import_result r = import_text(R"json({"name": "m", "config": {
    "connector.class": "io.debezium.connector.jdbc.JdbcSinkConnector",
    "connection.url": "jdbc:mariadb://db.example:3306/shop?user=app&password=hunter2",
    "topics": "a", "insert.mode": "upsert", "primary.key.mode": "record_key"}})json");
  const config c = load(r);
  CHECK(c.targets_mariadb());
  CHECK(c.postgres.dsn.empty());
  CHECK(r.yaml.find("mariadb.dsn: \"mariadb://app:${MARIADB_PASSWORD}@db.example:3306/shop"
                    "?ssl-mode=DISABLED\"") != std::string::npos);
  CHECK(r.yaml.find("postgres.dsn") == std::string::npos);
  CHECK(r.yaml.find("hunter2") == std::string::npos);
  CHECK(has_variable(r, "MARIADB_PASSWORD"));
  CHECK(left_out(r, "connection.url password"));
  // The peer's unqualified names live in the URL's database.
  CHECK(c.table_name_format == "shop.${topic}");
  CHECK_FALSE(left_out(r, "connection.url jdbc:mysql"));
}

TEST_CASE("connection.user and connection.password go with a jdbc:mariadb URL as for PostgreSQL") {
  const import_result r = import_text(R"(name=m
connector.class=io.confluent.connect.jdbc.JdbcSinkConnector
topics=orders
connection.url=jdbc:mariadb://db:3306/replica?sslMode=verify-full&serverSslCert=/etc/ca.pem
connection.user=${env:DB_USER}
connection.password=${env:DB_PASSWORD}
)");
  const config c = load(r);
  CHECK(c.mariadb.dsn ==
        "mariadb://set:set@db:3306/replica?ssl-mode=VERIFY_IDENTITY&ssl-ca=%2Fetc%2Fca.pem");
  CHECK(r.yaml.find("mariadb://${DB_USER}:${DB_PASSWORD}@db:3306/replica") != std::string::npos);
  CHECK(has_variable(r, "DB_USER"));
  CHECK(has_variable(r, "DB_PASSWORD"));
  CHECK_FALSE(has_variable(r, "MARIADB_PASSWORD"));
  CHECK(r.left_out.empty());
}

TEST_CASE("a jdbc:mysql URL becomes mariadb.dsn with a note that MySQL 8 is not run") {
  const import_result r = import_text(R"json({"name": "my", "config": {
    "connector.class": "io.debezium.connector.jdbc.JdbcSinkConnector",
    "connection.url": "jdbc:mysql://h1:3306,h2:3306/inventory?useSSL=true",
    "connection.username": "root", "connection.password": "debezium",
    "topics": "a", "insert.mode": "upsert", "primary.key.mode": "record_key"}})json");
  const config c = load(r);
  CHECK(c.targets_mariadb());
  CHECK(r.yaml.find("mariadb://root:${MARIADB_PASSWORD}@h1:3306/inventory?ssl-mode=REQUIRED") !=
        std::string::npos);
  CHECK(r.yaml.find("debezium\"") == std::string::npos);
  CHECK(left_out(r, "connection.url jdbc:mysql://"));
  CHECK(left_out(r, "connection.url hosts h1:3306,h2:3306"));
}

TEST_CASE("MariaDB and MySQL URLs: TLS is never weaker than the URL asks") {
  CHECK(jdbc_to_mariadb("jdbc:mariadb://h/d", "", "").uri == "mariadb://h/d?ssl-mode=DISABLED");
  CHECK(jdbc_to_mariadb("jdbc:mariadb://h/d?sslMode=trust", "u", "").uri ==
        "mariadb://u@h/d?ssl-mode=REQUIRED");
  CHECK(jdbc_to_mariadb("jdbc:mariadb://h/d?sslMode=verify-ca", "", "").uri ==
        "mariadb://h/d?ssl-mode=VERIFY_CA");
  CHECK(jdbc_to_mariadb("jdbc:mariadb://h/d?useSsl=true", "", "").uri ==
        "mariadb://h/d?ssl-mode=VERIFY_IDENTITY");
  CHECK(jdbc_to_mariadb("jdbc:mariadb://h/d?useSsl=true&trustServerCertificate=true", "", "").uri ==
        "mariadb://h/d?ssl-mode=REQUIRED");
  CHECK(jdbc_to_mariadb("jdbc:mysql://h/d", "", "").uri == "mariadb://h/d?ssl-mode=PREFERRED");
  CHECK(jdbc_to_mariadb("jdbc:mysql://h/d?sslMode=verify_identity", "", "").uri ==
        "mariadb://h/d?ssl-mode=VERIFY_IDENTITY");
  CHECK(jdbc_to_mariadb("jdbc:mysql://h/d?useSSL=false", "", "").uri ==
        "mariadb://h/d?ssl-mode=DISABLED");
  CHECK(jdbc_to_mariadb("jdbc:mysql://h/d?useSSL=true&verifyServerCertificate=true", "", "").uri ==
        "mariadb://h/d?ssl-mode=VERIFY_CA");
  // A user or password that is not a placeholder is percent-encoded.
  CHECK(jdbc_to_mariadb("jdbc:mariadb://h:3307/d", "a@b", "${P}").uri ==
        "mariadb://a%40b:${P}@h:3307/d?ssl-mode=DISABLED");
  CHECK_FALSE(jdbc_to_mariadb("jdbc:mariadb://h/d?sslMode=bogus", "", "").error.empty());
  CHECK_FALSE(jdbc_to_mariadb("jdbc:mariadb://h/", "", "").error.empty());
  CHECK_FALSE(jdbc_to_mariadb("jdbc:mariadb://address=(host=h)/d", "", "").error.empty());
  CHECK_FALSE(jdbc_to_mariadb("jdbc:postgresql://h/d", "", "").error.empty());
  CHECK(is_mariadb_jdbc_url("jdbc:mysql://h/d"));
  CHECK_FALSE(is_mariadb_jdbc_url("jdbc:postgresql://h/d"));
}

TEST_CASE("what is not a JDBC sink's config is refused") {
  CHECK_FALSE(read_connect_config("{\"config\": [1]}").config);
  const import_result other =
      import_text(R"({"connector.class": "io.debezium.connector.postgresql.PostgresConnector"})");
  CHECK_FALSE(other.error.empty());
  const import_result no_url =
      import_text(R"({"connector.class": "io.debezium.connector.jdbc.JdbcSinkConnector"})");
  CHECK(no_url.error.find("connection.url") != std::string::npos);
}

TEST_CASE(".properties: comments, continuations, separators and escapes as Java reads them") {
  const auto p = read_properties(
      "# comment\n! also\n  a = 1\nb:2\nc 3\nd=x\\\n    y\ne=tab\\there\nf\\=g=h\nu=\\u00e9\n");
  REQUIRE(p.size() == 7);
  CHECK(p[0] == std::pair<std::string, std::string>{"a", "1"});
  CHECK(p[1] == std::pair<std::string, std::string>{"b", "2"});
  CHECK(p[2] == std::pair<std::string, std::string>{"c", "3"});
  CHECK(p[3] == std::pair<std::string, std::string>{"d", "xy"});
  CHECK(p[4] == std::pair<std::string, std::string>{"e", "tab\there"});
  CHECK(p[5] == std::pair<std::string, std::string>{"f=g", "h"});
  CHECK(p[6] == std::pair<std::string, std::string>{"u", "\xc3\xa9"});
}
