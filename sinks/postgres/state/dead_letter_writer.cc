#include "sinks/postgres/state/dead_letter_writer.h"

#include <pqxx/result>

#include "sinks/plan/json_text.h"
#include "sinks/postgres/sql/pg_array.h"

namespace sluice {

dead_letter_writer::dead_letter_writer(const state_schema& schema, std::string connector)
    : _table(schema.table("dead_letters")), _connector(std::move(connector)) {}

size_t dead_letter_writer::write(pqxx::transaction_base& tx,
                                 const std::vector<const dead_letter*>& letters,
                                 std::vector<int64_t>* ids) const {
  if (ids) ids->clear();
  if (letters.empty()) return 0;
  pg_array reasons, kinds, schemas, tables, topics, parts, offsets, stamps, keys, values, headers;
  for (const dead_letter* d : letters) {
    kinds.add(to_string(d->kind));
    if (d->target_table.empty()) {
      schemas.add_null();
      tables.add_null();
    } else {
      schemas.add(d->target_schema);
      tables.add(d->target_table);
    }
    // The reason is text: keep it storable whatever the source gave.
    reasons.add(is_storable_text(d->reason) ? d->reason : std::string("(reason not UTF-8)"));
    if (d->origin.topic.empty()) {
      // Not from one message (a merged row the database refused): no origin.
      topics.add_null();
      parts.add_null();
      offsets.add_null();
      stamps.add_null();
    } else {
      topics.add(d->origin.topic);
      parts.add_int(d->origin.partition.value());
      offsets.add_int(d->origin.offset.value());
      stamps.add_int(d->origin.timestamp.value() / 1000);
    }
    if (d->key) {
      keys.add_bytea(*d->key);
    } else {
      keys.add_null();
    }
    if (d->value) {
      values.add_bytea(*d->value);
    } else {
      values.add_null();
    }
    if (d->headers.empty()) {
      headers.add_null();
    } else {
      headers.add(headers_json(d->headers));
    }
  }
  const pqxx::result r = tx.exec_params(
      "INSERT INTO " + _table +
          " (connector, reason, kind, target_schema, target_table, topic, partition, "
          "kafka_offset, kafka_timestamp, key, value, headers) "
          "SELECT $1, d.reason, d.kind, d.target_schema, d.target_table, d.topic, d.partition, "
          "d.kafka_offset, 'epoch'::timestamptz + d.ts_us * interval '1 microsecond', d.key, "
          "d.value, CAST(d.headers AS jsonb) FROM unnest($2::text[], $3::text[], $4::text[], "
          "$5::text[], $6::text[], $7::int4[], $8::bigint[], $9::bigint[], $10::bytea[], "
          "$11::bytea[], $12::text[]) WITH ORDINALITY AS d(reason, kind, target_schema, "
          "target_table, topic, partition, kafka_offset, ts_us, key, value, headers, n) "
          "ORDER BY d.n RETURNING id",
      _connector, reasons.take(), kinds.take(), schemas.take(), tables.take(), topics.take(),
      parts.take(), offsets.take(), stamps.take(), keys.take(), values.take(), headers.take());
  if (ids) {
    ids->reserve(r.size());
    for (const auto& row : r)
      ids->push_back(row[0].as<int64_t>());
  }
  return static_cast<size_t>(r.affected_rows());
}

}  // namespace sluice
