#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace sluice::testing {

// The topics e2e_bench produces, one class per message format: what each event's Kafka
// messages are, and the row the raw COPY reference writes for it (SPEC §8 "Benchmarks").
//
//   datastream            Datastream JSON events of the PostgreSQL-source flavour, 10 columns
//                         (id + text, numeric, integer, boolean and timestamp-text columns):
//                         60% inserts of new keys, 10% updates of other live keys, 20% updates
//                         of a hot set (1% of the keys), 10% deletes of live keys; with
//                         inserts_only, every event an insert of a new key.
//   datastream-avro       the same events as Datastream's Avro: one object container a message
//                         (integration/support/avro_container_writer, Avro C's bytes), decimals
//                         as Avro decimals and timestamps as timestamp-micros, so typed columns.
//   debezium              Debezium PostgreSQL-source changes as JsonConverter writes them with
//                         schemas (~3.8 KB a message): an 11-column bigint-keyed table, source
//                         transactions of 400 inserts + 500 updates + 100 deletes (shuffled;
//                         updates and deletes of live keys), Debezium's tombstone after each
//                         delete (a message, not an event), transaction metadata on.
//   debezium-40           the same mix on a 40-column table.
//   debezium-schemaless   the 11-column mix with schemas.enable=false (payload only).
//
// Deterministic for a seed. Lifecycle: one per topic. Threading: one thread.

// One Kafka message; no value is a tombstone.
struct bench_message {
  std::string key;
  std::optional<std::string> value;
};

enum class bench_op { insert, update, remove };

class bench_workload {
 public:
  virtual ~bench_workload() = default;

  // The connector's `format:`.
  virtual const char* sluice_format() const = 0;
  // "Datastream events (PostgreSQL source, 10 columns)", for the report.
  virtual std::string describe() const = 0;
  // The next event: its messages appended to `out`; unless it deletes, its row image appended
  // to `copy` as a COPY text line with `copy_key` as its key (a primary key refuses the
  // repeats of a key, so the reference's keys are made unique).
  virtual bench_op next(std::vector<bench_message>& out, std::string& copy, int64_t copy_key) = 0;
  // The columns of the COPY lines, in order.
  virtual const std::vector<std::string>& copy_columns() const = 0;
  // Keys alive after the events so far.
  virtual size_t live_keys() const = 0;
  // Keys that take 20% of the events (0: none).
  virtual size_t hot_keys() const { return 0; }

  // The latency phase: an insert of the new key `id` whose row also carries `produced_us`
  // (a column of its own). Only on a workload made with `stamped`.
  virtual bench_message stamped_insert(int64_t id, int64_t produced_us) = 0;
};

// Throws on an unknown format, naming the known ones, and on inserts_only for a format without
// it (the Debezium ones). `table` is the source table's name (the replica's), `events` the
// number the throughput phase will ask for (it sizes the hot set).
std::unique_ptr<bench_workload> make_workload(const std::string& format, const std::string& table,
                                              size_t events, uint64_t seed, bool stamped,
                                              bool inserts_only = false);

// "datastream, datastream-avro, debezium, debezium-40, debezium-schemaless".
std::string workload_formats();

// The formats' own (e2e_datastream_workload.cc, e2e_debezium_workload.cc).
std::unique_ptr<bench_workload> make_datastream_workload(const std::string& table, size_t events,
                                                         uint64_t seed, bool stamped, bool avro,
                                                         bool inserts_only = false);
std::unique_ptr<bench_workload> make_debezium_workload(const std::string& table, uint64_t seed,
                                                       bool stamped, size_t columns, bool schemas);

}  // namespace sluice::testing
