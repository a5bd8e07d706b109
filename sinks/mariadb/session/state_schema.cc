#include "sinks/mariadb/session/state_schema.h"

#include <stdexcept>
#include <vector>

#include "sinks/mariadb/sql/mdb_identifier.h"

namespace sluice::mdb {
namespace {

// Every state table's options: InnoDB (row locks, crash-safe commits with the replica's
// rows), names compared byte for byte without padding.
constexpr const char* table_options =
    " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin";

// Steps, one per version; '@' stands for the quoted database. Column widths keep every
// primary key within InnoDB's 3072 bytes (utf8mb4: 4 bytes a character).
const std::vector<std::vector<std::string>>& migrations() {
  static const std::vector<std::vector<std::string>> steps = {
      {
          R"(CREATE TABLE IF NOT EXISTS @.offsets (
               connector varchar(128) NOT NULL,
               topic varchar(249) NOT NULL,
               `partition` int NOT NULL,
               next_offset bigint,
               owner_epoch bigint NOT NULL DEFAULT 0,
               updated_at datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
               PRIMARY KEY (connector, topic, `partition`)))",
          // batch_marker: random per write of a batch's letters, to read their ids back (an
          // array-bound INSERT's AUTO_INCREMENT ids need not be consecutive: other sessions'
          // inserts interleave under innodb_autoinc_lock_mode 1 and 2).
          R"(CREATE TABLE IF NOT EXISTS @.dead_letters (
               id bigint NOT NULL AUTO_INCREMENT PRIMARY KEY,
               connector varchar(128) NOT NULL,
               kind varchar(32),
               target_schema varchar(64),
               target_table varchar(64),
               reason text NOT NULL,
               topic varchar(249),
               `partition` int,
               kafka_offset bigint,
               kafka_timestamp datetime(6),
               `key` longblob,
               value longblob,
               headers json,
               created_at datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
               batch_marker binary(16),
               KEY dead_letters_connector_created_at (connector, created_at),
               KEY dead_letters_batch_marker (batch_marker),
               KEY dead_letters_connector_kind (connector, kind, created_at)))",
          // key_hash: SHA2(key, 256), the key's identity (a canonical key may outgrow an
          // InnoDB index); key: the canonical bytes (core/model/row_key.h).
          R"(CREATE TABLE IF NOT EXISTS @.tombstones (
               target_schema varchar(64) NOT NULL,
               target_table varchar(64) NOT NULL,
               key_hash binary(32) NOT NULL,
               `key` mediumblob NOT NULL,
               key_json json,
               csn varbinary(1024) NOT NULL,
               deleted_at datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
               PRIMARY KEY (target_schema, target_table, key_hash),
               KEY tombstones_deleted_at (deleted_at)))",
          R"(CREATE TABLE IF NOT EXISTS @.pending_fragments (
               connector varchar(128) NOT NULL,
               chunk_id varchar(255) NOT NULL,
               piece int NOT NULL,
               total_pieces int,
               crc32c varchar(16),
               payload longblob NOT NULL,
               topic varchar(249),
               `partition` int,
               kafka_offset bigint,
               kafka_timestamp datetime(6),
               first_seen datetime(6),
               created_at datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
               PRIMARY KEY (connector, chunk_id, piece)))",
          R"(CREATE TABLE IF NOT EXISTS @.catalog (
               connector varchar(128) NOT NULL,
               source_database varchar(128) NOT NULL DEFAULT '',
               source_schema varchar(128) NOT NULL DEFAULT '',
               source_table varchar(128) NOT NULL,
               key_columns json,
               columns json,
               learned_from text,
               csn varbinary(1024),
               updated_at datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
               PRIMARY KEY (connector, source_database, source_schema, source_table)))",
          R"(CREATE TABLE IF NOT EXISTS @.ddl_history (
               id bigint NOT NULL AUTO_INCREMENT PRIMARY KEY,
               connector varchar(128) NOT NULL,
               source_table text,
               statement longtext NOT NULL,
               csn varbinary(1024),
               source_ts datetime(6),
               topic varchar(249),
               `partition` int,
               kafka_offset bigint,
               recorded_at datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)))",
          R"(CREATE TABLE IF NOT EXISTS @.table_progress (
               connector varchar(128) NOT NULL,
               target_schema varchar(64) NOT NULL,
               target_table varchar(64) NOT NULL,
               newest_source_ts datetime(6),
               applied_at datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
               PRIMARY KEY (connector, target_schema, target_table)))",
          R"(CREATE TABLE IF NOT EXISTS @.routes (
               connector varchar(128) NOT NULL,
               target_schema varchar(64) NOT NULL,
               target_table varchar(64) NOT NULL,
               source_database varchar(128) NOT NULL DEFAULT '',
               source_schema varchar(128) NOT NULL DEFAULT '',
               source_table varchar(128) NOT NULL,
               shard_column varchar(64),
               claimed_at datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
               PRIMARY KEY (connector, target_schema, target_table)))",
          R"(CREATE TABLE IF NOT EXISTS @.registry_schemas (
               registry_url varchar(512) NOT NULL,
               id int NOT NULL,
               schema_type varchar(32) NOT NULL,
               `schema` longtext NOT NULL,
               fetched_at datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
               PRIMARY KEY (registry_url, id)))",
          R"(CREATE TABLE IF NOT EXISTS @.connector_control (
               connector varchar(128) NOT NULL PRIMARY KEY,
               target_state varchar(16) NOT NULL DEFAULT 'RUNNING'
                 CHECK (target_state IN ('RUNNING', 'PAUSED', 'STOPPED')),
               restart_epoch bigint NOT NULL DEFAULT 0,
               restart_only_failed boolean NOT NULL DEFAULT false,
               changed_by text,
               changed_at datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)))",
          R"(CREATE TABLE IF NOT EXISTS @.members (
               connector varchar(128) NOT NULL,
               worker_id varchar(255) NOT NULL,
               state varchar(32) NOT NULL,
               trace text,
               topics json NOT NULL DEFAULT '[]',
               restart_epoch bigint NOT NULL DEFAULT 0,
               started_at datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
               heartbeat_at datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
               PRIMARY KEY (connector, worker_id)))",
          // Version 1's writers of a key locked its bucket's row (SELECT … FOR UPDATE, buckets
          // in ascending order); a table's writers lock its row in share mode, its truncate
          // exclusively.
          R"(CREATE TABLE IF NOT EXISTS @.lock_buckets (
               bucket int NOT NULL PRIMARY KEY))",
          "INSERT IGNORE INTO @.lock_buckets (bucket) SELECT seq FROM seq_0_to_4095",
          R"(CREATE TABLE IF NOT EXISTS @.table_locks (
               target_schema varchar(64) NOT NULL,
               target_table varchar(64) NOT NULL,
               PRIMARY KEY (target_schema, target_table)))",
      },
      {
          // Version 2: a row per key (its 64-bit hash, big-endian), made by its first writer
          // and locked by INSERT … ON DUPLICATE KEY UPDATE. lock_buckets stays for a sluice of
          // version 1 still running while this one migrates (it refuses to start afterwards).
          R"(CREATE TABLE IF NOT EXISTS @.key_locks (
               key_hash binary(8) NOT NULL PRIMARY KEY))",
      },
  };
  return steps;
}

std::string expand(const std::string& sql, const std::string& quoted) {
  std::string out;
  out.reserve(sql.size() + 32);
  for (char c : sql) {
    if (c == '@') {
      out += quoted;
    } else {
      out.push_back(c);
    }
  }
  if (sql.starts_with("CREATE TABLE")) out += table_options;
  return out;
}

// Releases the migration lock however migrate() ends.
struct named_lock {
  connection& conn;
  std::string name;
  ~named_lock() {
    try {
      conn.exec("SELECT RELEASE_LOCK(?)", std::vector{param::text(name)});
    } catch (...) {  // the connection is gone: so is the lock
    }
  }
};

}  // namespace

state_schema::state_schema(std::string database)
    : _database(std::move(database)), _quoted(quote_identifier(_database)) {
  if (_database.empty() || _database.size() > max_identifier_chars) {
    throw std::invalid_argument("state database name must be 1 to 64 characters: `" + _database +
                                "`");
  }
}

std::string state_schema::table(std::string_view name) const {
  return _quoted + "." + quote_identifier(name);
}

int state_schema::migrate(connection& conn) const {
  static_assert(current_version > 0);
  static_assert(lock_bucket_count == 4096, "the lock_buckets fill (seq_0_to_4095) follows it");
  const std::string lock = "sluice_migrate:" + _database;
  const result got = conn.query("SELECT GET_LOCK(?, 60)", std::vector{param::text(lock)});
  if (got.empty() || got.at(0, 0) != "1") {
    throw std::runtime_error("state database " + _database +
                             ": another sluice held the migration lock for 60 s");
  }
  named_lock held{conn, lock};
  conn.exec("CREATE DATABASE IF NOT EXISTS " + _quoted +
            " CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin");
  conn.exec("CREATE TABLE IF NOT EXISTS " + table("schema_version") +
            " (version int NOT NULL PRIMARY KEY, applied_at datetime(6) NOT NULL DEFAULT "
            "CURRENT_TIMESTAMP(6))" +
            table_options);
  const result found =
      conn.query("SELECT coalesce(max(version), 0) FROM " + table("schema_version"));
  const int before = std::stoi(found.at(0, 0).value_or("0"));
  if (before > current_version) {
    throw std::runtime_error("state database " + _database + " is at version " +
                             std::to_string(before) + ", newer than this sluice (" +
                             std::to_string(current_version) + "): upgrade sluice");
  }
  const auto& steps = migrations();
  if (steps.size() != static_cast<size_t>(current_version)) {
    throw std::logic_error("state database migrations do not match current_version");
  }
  for (int v = before; v < current_version; ++v) {
    for (const std::string& sql : steps[static_cast<size_t>(v)])
      conn.exec(expand(sql, _quoted));
    conn.exec("INSERT IGNORE INTO " + table("schema_version") + " (version) VALUES (?)",
              std::vector{param::text(std::to_string(v + 1))});
  }
  return before;
}

}  // namespace sluice::mdb
