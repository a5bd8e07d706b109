#include "sinks/postgres/plan/table_shape_reader.h"

#include <algorithm>
#include <utility>

#include <pqxx/result>

namespace sluice {

table_shape read_table_shape(pqxx::transaction_base& tx, const target_table& table) {
  // indkey is an int2vector, subscripted from 0: array_position gives the key position.
  const pqxx::result r = tx.exec_params(
      R"(SELECT a.attname, format_type(a.atttypid, a.atttypmod),
                (SELECT array_position(i.indkey::int2[], a.attnum)
                   FROM pg_index i WHERE i.indrelid = c.oid AND i.indisprimary)
           FROM pg_class c
           JOIN pg_namespace n ON n.oid = c.relnamespace
           JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
          WHERE n.nspname = $1 AND c.relname = $2 AND c.relkind IN ('r', 'p')
          ORDER BY a.attnum)",
      table.schema, table.name);
  table_shape shape;
  shape.exists = !r.empty();
  std::vector<std::pair<int, std::string>> key;
  for (const pqxx::row& row : r) {
    shape.columns.push_back({row[0].as<std::string>(), row[1].as<std::string>()});
    if (!row[2].is_null()) key.emplace_back(row[2].as<int>(), row[0].as<std::string>());
  }
  std::sort(key.begin(), key.end());
  for (auto& [_, name] : key)
    shape.primary_key.push_back(std::move(name));
  return shape;
}

}  // namespace sluice
