#include "sinks/postgres/plan/table_shape_reader.h"

#include <algorithm>
#include <utility>

#include <pqxx/result>

#include "sinks/postgres/sql/pg_array.h"
#include "sinks/postgres/sql/write_sql.h"

namespace sluice {
namespace {

// position_columns() as a text[] parameter.
std::string position_columns_array() {
  pg_array out;
  for (const std::string& c : position_columns())
    out.add(c);
  return out.take();
}

}  // namespace

table_shape read_table_shape(pqxx::transaction_base& tx, const target_table& table) {
  // indkey is an int2vector, subscripted from 0: array_position gives the key position.
  const pqxx::result r = tx.exec_params(
      R"(SELECT a.attname, format_type(a.atttypid, a.atttypmod),
                (SELECT array_position(i.indkey::int2[], a.attnum)
                   FROM pg_index i WHERE i.indrelid = c.oid AND i.indisprimary),
                EXISTS (SELECT 1 FROM pg_index i
                         WHERE i.indrelid = c.oid AND i.indisunique AND i.indpred IS NULL
                           AND (SELECT array_agg(k.attname::text ORDER BY k.attname)
                                  FROM pg_attribute k
                                 WHERE k.attrelid = c.oid AND k.attnum = ANY(i.indkey::int2[]))
                               = $3::text[]),
                c.relkind = 'p'
           FROM pg_class c
           JOIN pg_namespace n ON n.oid = c.relnamespace
           JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
          WHERE n.nspname = $1 AND c.relname = $2 AND c.relkind IN ('r', 'p')
          ORDER BY a.attnum)",
      table.schema, table.name, position_columns_array());
  table_shape shape;
  shape.exists = !r.empty();
  shape.position_index = shape.exists && r[0][3].as<bool>();
  shape.partitioned = shape.exists && r[0][4].as<bool>();
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
