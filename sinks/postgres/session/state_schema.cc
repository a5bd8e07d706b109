#include "sinks/postgres/session/state_schema.h"

#include <stdexcept>
#include <vector>

#include <pqxx/transaction>

#include "core/catalog/table_router.h"
#include "sinks/postgres/sql/advisory_lock_space.h"
#include "sinks/postgres/sql/pg_identifier.h"

namespace sluice {
namespace {

// One step per version; step i brings the schema from version i to i + 1. "@" stands for the
// quoted schema name. Steps are append-only: a released step never changes.
const std::vector<std::vector<std::string>>& migrations() {
  static const std::vector<std::vector<std::string>> steps = {
      {
          // Kafka offsets, keyed by connector name; every write is a compare-and-set on
          // (owner_epoch, next_offset). next_offset NULL: claimed, nothing committed yet.
          R"(CREATE TABLE IF NOT EXISTS @.offsets (
               connector text NOT NULL,
               topic text NOT NULL,
               partition integer NOT NULL,
               next_offset bigint,
               owner_epoch bigint NOT NULL DEFAULT 0,
               updated_at timestamptz NOT NULL DEFAULT now(),
               PRIMARY KEY (connector, topic, partition)))",
          R"(CREATE TABLE IF NOT EXISTS @.dead_letters (
               id bigserial PRIMARY KEY,
               connector text NOT NULL,
               reason text NOT NULL,
               topic text,
               partition integer,
               kafka_offset bigint,
               kafka_timestamp timestamptz,
               key bytea,
               value bytea,
               headers jsonb,
               created_at timestamptz NOT NULL DEFAULT now()))",
          "CREATE INDEX IF NOT EXISTS dead_letters_connector_created_at "
          "ON @.dead_letters (connector, created_at)",
          // key: the canonical key bytes (core/model/row_key.h); the empty key is the whole
          // table (a truncate). csn: the highest delete CSN seen for the key.
          R"(CREATE TABLE IF NOT EXISTS @.tombstones (
               target_schema text NOT NULL,
               target_table text NOT NULL,
               key bytea NOT NULL,
               key_json jsonb,
               csn bytea NOT NULL,
               deleted_at timestamptz NOT NULL DEFAULT now(),
               PRIMARY KEY (target_schema, target_table, key)))",
          "CREATE INDEX IF NOT EXISTS tombstones_deleted_at ON @.tombstones (deleted_at)",
          // Pieces of chunked records (Aurora DSQL) waiting for the rest: piece -1 is the
          // principal record, 0..n-1 the fragments (-2 marks a completed chunk for a while:
          // sinks/postgres/chunk_store.h). first_seen is stream time (the Kafka
          // timestamp of the first piece), which chunk.timeout is measured against.
          R"(CREATE TABLE IF NOT EXISTS @.pending_fragments (
               connector text NOT NULL,
               chunk_id text NOT NULL,
               piece integer NOT NULL,
               total_pieces integer,
               crc32c text,
               payload bytea NOT NULL,
               topic text,
               partition integer,
               kafka_offset bigint,
               kafka_timestamp timestamptz,
               first_seen timestamptz,
               created_at timestamptz NOT NULL DEFAULT now(),
               PRIMARY KEY (connector, chunk_id, piece)))",
          // What metadata records, configuration and key discovery taught about a source
          // table (core/catalog/table_catalog.h), so a restart does not forget it.
          R"(CREATE TABLE IF NOT EXISTS @.catalog (
               connector text NOT NULL,
               source_database text NOT NULL DEFAULT '',
               source_schema text NOT NULL DEFAULT '',
               source_table text NOT NULL,
               key_columns text[],
               columns jsonb,
               learned_from text,
               csn bytea,
               updated_at timestamptz NOT NULL DEFAULT now(),
               PRIMARY KEY (connector, source_database, source_schema, source_table)))",
          R"(CREATE TABLE IF NOT EXISTS @.ddl_history (
               id bigserial PRIMARY KEY,
               connector text NOT NULL,
               source_table text,
               statement text NOT NULL,
               csn bytea,
               source_ts timestamptz,
               topic text,
               partition integer,
               kafka_offset bigint,
               recorded_at timestamptz NOT NULL DEFAULT now()))",
      },
      {
          // Per target table, the source timestamp of the newest applied change (what
          // `sluice status` shows), written in the batch transaction.
          R"(CREATE TABLE IF NOT EXISTS @.table_progress (
               connector text NOT NULL,
               target_schema text NOT NULL,
               target_table text NOT NULL,
               newest_source_ts timestamptz,
               applied_at timestamptz NOT NULL DEFAULT now(),
               PRIMARY KEY (connector, target_schema, target_table)))",
      },
      {
          // Version 3 changes no table: writers now lock exact keys rather than key-hash
          // buckets (key_locks.h), and the two would not exclude each other, so a sluice that
          // still locks buckets must refuse this state schema rather than run beside one.
          "COMMENT ON TABLE @.offsets IS 'sluice state; since version 3 writers lock exact "
          "keys'",
      },
      {
          // What a dead letter is about, to list, replay and purge them by kind and table:
          // decode | routing | rejected | ddl_failed | keyless | chunk (dead_letter_kind).
          // Letters written before version 4 keep NULL.
          "ALTER TABLE @.dead_letters ADD COLUMN IF NOT EXISTS kind text, "
          "ADD COLUMN IF NOT EXISTS target_schema text, "
          "ADD COLUMN IF NOT EXISTS target_table text",
          "CREATE INDEX IF NOT EXISTS dead_letters_connector_kind "
          "ON @.dead_letters (connector, kind, created_at)",
          // Which source table feeds each target table (SPEC §4: two sources folding onto
          // one target is an error). Claimed by the first lane or instance that routes there;
          // the primary key makes the claim unique across all of them.
          R"(CREATE TABLE IF NOT EXISTS @.routes (
               connector text NOT NULL,
               target_schema text NOT NULL,
               target_table text NOT NULL,
               source_database text NOT NULL DEFAULT '',
               source_schema text NOT NULL DEFAULT '',
               source_table text NOT NULL,
               claimed_at timestamptz NOT NULL DEFAULT now(),
               PRIMARY KEY (connector, target_schema, target_table)))",
      },
      {
          // Writer schemas fetched from a Schema Registry (connector/registry/), so that a
          // restart during a registry outage still decodes what it decoded before. Shared by
          // every connector that uses the same registry: an id names one schema there.
          R"(CREATE TABLE IF NOT EXISTS @.registry_schemas (
               registry_url text NOT NULL,
               id integer NOT NULL,
               schema_type text NOT NULL,
               schema text NOT NULL,
               fetched_at timestamptz NOT NULL DEFAULT now(),
               PRIMARY KEY (registry_url, id)))",
      },
      {
          // The connector's target state and restart requests, shared by every member
          // (connector/control/: Kafka Connect keeps the same in its config topic). No row:
          // RUNNING.
          R"(CREATE TABLE IF NOT EXISTS @.connector_control (
               connector text PRIMARY KEY,
               target_state text NOT NULL DEFAULT 'RUNNING'
                 CHECK (target_state IN ('RUNNING', 'PAUSED', 'STOPPED')),
               restart_epoch bigint NOT NULL DEFAULT 0,
               restart_only_failed boolean NOT NULL DEFAULT false,
               changed_by text,
               changed_at timestamptz NOT NULL DEFAULT now()))",
          // One row per live member, rewritten every heartbeat; a member silent for long is
          // forgotten by the others. restart_epoch: bumped to restart that member alone.
          R"(CREATE TABLE IF NOT EXISTS @.members (
               connector text NOT NULL,
               worker_id text NOT NULL,
               state text NOT NULL,
               trace text,
               topics text[] NOT NULL DEFAULT '{}',
               restart_epoch bigint NOT NULL DEFAULT 0,
               started_at timestamptz NOT NULL DEFAULT now(),
               heartbeat_at timestamptz NOT NULL DEFAULT now(),
               PRIMARY KEY (connector, worker_id)))",
      },
      {
          // The shard column of a target fed by the shards of a logical table
          // (ByLogicalTableRouter): the claim admits every source keyed by the same column;
          // NULL: the target is its one source's.
          "ALTER TABLE @.routes ADD COLUMN IF NOT EXISTS shard_column text",
      },
  };
  return steps;
}

std::string expand(const std::string& sql, const std::string& quoted_schema) {
  std::string out;
  out.reserve(sql.size() + 32);
  for (char c : sql) {
    if (c == '@') {
      out += quoted_schema;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace

state_schema::state_schema(std::string schema)
    : _schema(std::move(schema)), _quoted(quote_identifier(_schema)) {
  if (_schema.empty() || _schema.size() > pg_max_identifier_bytes) {
    throw std::invalid_argument("state schema name must be 1 to 63 bytes: \"" + _schema + "\"");
  }
}

std::string state_schema::table(std::string_view name) const {
  return _quoted + "." + quote_identifier(name);
}

int state_schema::migrate(pqxx::connection_base& conn) const {
  static_assert(current_version > 0);
  pqxx::work tx(conn, "sluice_migrate");
  tx.exec_params("SELECT pg_advisory_xact_lock($1, hashtext($2))", advisory_lock_space::migrate,
                 _schema);
  // CREATE SCHEMA IF NOT EXISTS still needs the CREATE privilege: skip it when it exists.
  if (tx.exec_params("SELECT 1 FROM pg_namespace WHERE nspname = $1", _schema).empty()) {
    tx.exec("CREATE SCHEMA " + _quoted);
  }
  tx.exec("CREATE TABLE IF NOT EXISTS " + table("schema_version") +
          " (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())");
  const pqxx::row found =
      tx.exec1("SELECT coalesce(max(version), 0) FROM " + table("schema_version"));
  const int before = found[0].as<int>();
  if (before > current_version) {
    throw std::runtime_error("state schema " + _schema + " is at version " +
                             std::to_string(before) + ", newer than this sluice (" +
                             std::to_string(current_version) + "): upgrade sluice");
  }
  const auto& steps = migrations();
  if (steps.size() != static_cast<size_t>(current_version)) {
    throw std::logic_error("state schema migrations do not match current_version");
  }
  for (int v = before; v < current_version; ++v) {
    for (const std::string& sql : steps[static_cast<size_t>(v)])
      tx.exec(expand(sql, _quoted));
    tx.exec_params("INSERT INTO " + table("schema_version") + " (version) VALUES ($1)", v + 1);
  }
  tx.commit();
  return before;
}

}  // namespace sluice
