#include "sinks/mariadb/state/schema_store.h"

namespace sluice::mdb {

schema_store::schema_store(const state_schema& schema) : _table(schema.table("registry_schemas")) {}

std::optional<sink::stored_schema> schema_store::load(connection& conn,
                                                      const std::string& registry_url,
                                                      int32_t id) const {
  const std::string n = std::to_string(id);
  const result r = conn.query("SELECT schema_type, `schema` FROM " + _table +
                                  " WHERE registry_url = ? AND id = CAST(? AS SIGNED)",
                              std::vector{param::text(registry_url), param::text(n)});
  if (r.empty()) return std::nullopt;
  return sink::stored_schema{*r.at(0, 0), *r.at(0, 1)};
}

void schema_store::save(connection& conn, const std::string& registry_url, int32_t id,
                        const sink::stored_schema& schema) const {
  const std::string n = std::to_string(id);
  // Not INSERT IGNORE: that would also turn a value the column refuses into a warning.
  conn.exec("INSERT INTO " + _table +
                " (registry_url, id, schema_type, `schema`, fetched_at) "
                "VALUES (?, ?, ?, ?, UTC_TIMESTAMP(6)) ON DUPLICATE KEY UPDATE id = id",
            std::vector{param::text(registry_url), param::text(n), param::text(schema.type),
                        param::text(schema.text)});
}

}  // namespace sluice::mdb
