#include "sinks/mariadb/sql/ddl_sql.h"

#include <doctest/doctest.h>

namespace sluice {
namespace {

using mdb::column_spec;
using mdb::sql_dialect;

const target_table orders{"sh`op", "orders"};

TEST_CASE("mariadb ddl: CREATE TABLE IF NOT EXISTS, InnoDB, utf8mb4 NO PAD binary, the key") {
  mdb::table_definition def{orders,
                            {{"id", "bigint"}, {"region", "varchar(10) COLLATE utf8mb4_nopad_bin"}},
                            {{"note", "longtext"}, {"_sluice_csn", "varbinary(1024) NOT NULL"}}};
  CHECK(mdb::create_table_sql(def) ==
        "CREATE TABLE IF NOT EXISTS `sh``op`.`orders` (`id` bigint, `region` varchar(10) COLLATE "
        "utf8mb4_nopad_bin, `note` longtext, `_sluice_csn` varbinary(1024) NOT NULL, PRIMARY KEY "
        "(`id`, `region`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin");
  // MySQL 8 (not run here): its NO PAD binary collation.
  CHECK(mdb::create_table_sql(def, sql_dialect::mysql8())
            .ends_with("ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_bin"));
}

TEST_CASE("mariadb ddl: an append table is created with its position index") {
  mdb::table_definition def{orders, {}, {{"v", "int"}}, true};
  CHECK(mdb::create_table_sql(def) ==
        "CREATE TABLE IF NOT EXISTS `sh``op`.`orders` (`v` int, UNIQUE KEY `_sluice_position` "
        "(`_sluice_kafka_index`, `_sluice_kafka_offset`, `_sluice_kafka_partition`, "
        "`_sluice_kafka_topic`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 "
        "COLLATE=utf8mb4_nopad_bin");
  CHECK(mdb::position_index_sql(orders) ==
        "ALTER TABLE `sh``op`.`orders` ADD UNIQUE INDEX IF NOT EXISTS `_sluice_position` "
        "(`_sluice_kafka_index`, `_sluice_kafka_offset`, `_sluice_kafka_partition`, "
        "`_sluice_kafka_topic`)");
  // MySQL 8 has no ADD INDEX IF NOT EXISTS (not run here: the caller looks first).
  CHECK(mdb::position_index_sql(orders, sql_dialect::mysql8()) ==
        "CREATE UNIQUE INDEX `_sluice_position` ON `sh``op`.`orders` (`_sluice_kafka_index`, "
        "`_sluice_kafka_offset`, `_sluice_kafka_partition`, `_sluice_kafka_topic`)");
}

TEST_CASE("mariadb ddl: columns added IF NOT EXISTS on MariaDB, plainly on MySQL 8") {
  const std::vector<column_spec> cols = {{"a`b", "int"}, {"c", "json"}};
  CHECK(mdb::add_columns_sql(orders, cols) ==
        "ALTER TABLE `sh``op`.`orders` ADD COLUMN IF NOT EXISTS `a``b` int, "
        "ADD COLUMN IF NOT EXISTS `c` json");
  CHECK(mdb::add_columns_sql(orders, cols, sql_dialect::mysql8()) ==
        "ALTER TABLE `sh``op`.`orders` ADD COLUMN `a``b` int, ADD COLUMN `c` json");
  CHECK(mdb::widen_columns_sql(orders, {{"n", "bigint NOT NULL"}, {"s", "varchar(90)"}}) ==
        "ALTER TABLE `sh``op`.`orders` MODIFY COLUMN `n` bigint NOT NULL, MODIFY COLUMN `s` "
        "varchar(90)");
}

TEST_CASE("mariadb ddl: a database is created with the exact collation") {
  CHECK(mdb::create_database_sql("sh`op") ==
        "CREATE DATABASE IF NOT EXISTS `sh``op` CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin");
  CHECK(mdb::create_database_sql("x", sql_dialect::mysql8()) ==
        "CREATE DATABASE IF NOT EXISTS `x` CHARACTER SET utf8mb4 COLLATE utf8mb4_0900_bin");
}

}  // namespace
}  // namespace sluice
