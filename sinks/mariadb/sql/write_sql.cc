#include "sinks/mariadb/sql/write_sql.h"

#include <algorithm>
#include <cstdio>

#include "sinks/mariadb/sql/mdb_identifier.h"
#include "sinks/mariadb/sql/sql_fragments.h"

namespace sluice::mdb {

using sql::greater_value;
using sql::key_match;
using sql::older_than;

namespace {

constexpr const char* text_stage_type = "longtext CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin";

const std::vector<std::pair<std::string, std::string>>& lead_of(stage_kind kind) {
  static const std::vector<std::pair<std::string, std::string>> upsert = {
      {"_sluice_key", "longblob"}, {"_sluice_row_csn", "varbinary(1024)"}};
  static const std::vector<std::pair<std::string, std::string>> versioned = {
      {"_sluice_key", "longblob"},
      {"_sluice_row_csn", "varbinary(1024)"},
      {"_sluice_in_map", text_stage_type}};
  // The key's JSON in the collation of the tombstones' json column (MariaDB's json is longtext
  // utf8mb4_bin): MySQL 8's raise reads it in an IF() beside that column, which refuses a mix.
  static const std::vector<std::pair<std::string, std::string>> remove = {
      {"_sluice_key", "longblob"},
      {"_sluice_row_csn", "varbinary(1024)"},
      {"_sluice_key_json", "longtext CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"}};
  static const std::vector<std::pair<std::string, std::string>> append = {
      {"_sluice_op", text_stage_type},        {"_sluice_row_csn", "varbinary(1024)"},
      {"_sluice_source_ts", text_stage_type}, {"_sluice_tx", text_stage_type},
      {"_sluice_topic", text_stage_type},     {"_sluice_partition", "bigint"},
      {"_sluice_offset", "bigint"},           {"_sluice_index", "bigint"}};
  switch (kind) {
    case stage_kind::upsert:
      return upsert;
    case stage_kind::versioned:
      return versioned;
    case stage_kind::remove:
      return remove;
    case stage_kind::append:
      break;
  }
  return append;
}

char kind_letter(stage_kind kind) {
  switch (kind) {
    case stage_kind::upsert:
      return 'u';
    case stage_kind::versioned:
      return 'v';
    case stage_kind::remove:
      return 'd';
    case stage_kind::append:
      break;
  }
  return 'a';
}

// A typed key column's definition: the table's type, in its collation's character set.
std::string typed(const column_def& c) {
  if (c.collation.empty()) return c.type;
  const std::string charset = c.collation.substr(0, c.collation.find('_'));
  return c.type + " CHARACTER SET " + charset + " COLLATE " + c.collation;
}

std::string list(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& i : items)
    out += (out.empty() ? "" : ", ") + i;
  return out;
}

// An ON DUPLICATE KEY UPDATE's incoming value of target column `name`, whose SELECT expression
// is expr: VALUES(), typed as the column (MariaDB), or the SELECT's own expression (MySQL 8,
// where VALUES() is deprecated).
std::string incoming(const write_sql_context& ctx, const std::string& name,
                     const std::string& expr) {
  return !ctx.dialect.mysql ? "VALUES(" + quote_identifier(name) + ")" : expr;
}

// The first assignment "col = expr" also counts the row found (sql::counting).
void count_first(std::vector<std::string>& updates) {
  std::string& first = updates.front();
  const size_t eq = first.find(" = ");
  first = first.substr(0, eq) + " = " + sql::counting(first.substr(0, eq), first.substr(eq + 3));
}

}  // namespace

std::string found_rows_sql() {
  return std::string("SELECT ") + sql::found_counter + ", " + sql::found_counter + " := 0";
}

bool is_binary_type(std::string_view type) {
  for (const char* prefix : {"binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob"}) {
    const std::string_view p(prefix);
    if (type.substr(0, p.size()) == p &&
        (type.size() == p.size() || type[p.size()] == '(' || type[p.size()] == ' '))
      return true;
  }
  return false;
}

std::string key_alias(size_t i) {
  return "_sluice_k" + std::to_string(i);
}

std::string value_alias(size_t i) {
  return "_sluice_v" + std::to_string(i);
}

stage_def make_stage(stage_kind kind, const std::vector<const column_def*>& keys, bool typed_keys,
                     const std::vector<const column_def*>& values) {
  stage_def out;
  out.kind = kind;
  out.columns = lead_of(kind);
  out.lead = out.columns.size();
  out.keys = keys.size();
  out.values = values.size();
  for (size_t i = 0; i < keys.size(); ++i)
    out.columns.emplace_back(key_alias(i), typed_keys ? typed(*keys[i]) : text_stage_type);
  for (size_t i = 0; i < values.size(); ++i) {
    out.columns.emplace_back(value_alias(i),
                             is_binary_type(values[i]->type) ? "longblob" : text_stage_type);
  }
  // FNV-1a over the definitions: the name says what the table holds.
  uint64_t h = 1469598103934665603ULL;
  for (const auto& [name, type] : out.columns) {
    for (char c : name + " " + type + ",") {
      h ^= static_cast<unsigned char>(c);
      h *= 1099511628211ULL;
    }
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  out.table = std::string("sluice_stage_") + kind_letter(kind) + "_" + hex;
  return out;
}

std::string create_stage_sql(const stage_def& stage, const sql_dialect& dialect,
                             bool default_engine) {
  std::string cols;
  for (const auto& [name, type] : stage.columns)
    cols += (cols.empty() ? "" : ", ") + quote_identifier(name) + " " + type;
  return "CREATE TEMPORARY TABLE IF NOT EXISTS " + quote_identifier(stage.table) + " (" + cols +
         ")" + (default_engine || dialect.mysql ? "" : " ENGINE=Aria TRANSACTIONAL=0");
}

std::string clear_stage_sql(const stage_def& stage) {
  return "DELETE FROM " + quote_identifier(stage.table);
}

std::string fill_stage_sql(const stage_def& stage) {
  std::string names, marks;
  for (const auto& [name, type] : stage.columns) {
    names += (names.empty() ? "" : ", ") + quote_identifier(name);
    marks += marks.empty() ? "?" : ", ?";
  }
  return "INSERT INTO " + quote_identifier(stage.table) + " (" + names + ") VALUES (" + marks + ")";
}

std::string upsert_sql(const target_table& table, const stage_def& stage,
                       const std::vector<const column_def*>& key,
                       const std::vector<const column_def*>& columns,
                       const write_sql_context& ctx) {
  std::vector<std::string> names, values, updates;
  for (size_t i = 0; i < key.size(); ++i) {
    names.push_back(quote_identifier(key[i]->name));
    values.push_back("s." + key_alias(i));
  }
  const std::string csn = quote_identifier(meta::csn);
  const std::string deleted = quote_identifier(meta::deleted);
  const std::string in_csn = "s._sluice_row_csn";
  const std::string newer = older_than(csn, in_csn);
  const std::string tie = csn + " = " + in_csn;
  // Newer, or at equal CSN a soft-deleted row: the whole image (an upsert beats a delete).
  const std::string take_all =
      ctx.soft_delete ? "(" + newer + " OR (" + tie + " AND " + deleted + "))" : newer;
  std::string any_greater;
  for (size_t i = 0; i < columns.size(); ++i) {
    const std::string col = quote_identifier(columns[i]->name);
    const std::string in = incoming(ctx, columns[i]->name, "s." + value_alias(i));
    names.push_back(col);
    values.push_back("s." + value_alias(i));
    // Each column reads only itself and the CSN (and _sluice_deleted), all still old here.
    updates.push_back(col + " = IF(" + take_all + ", " + in + ", IF(" + tie + " AND " +
                      greater_value(in, col) + ", " + in + ", " + col + "))");
    any_greater += (any_greater.empty() ? "" : " OR ") + greater_value(in, col);
  }
  if (ctx.updated_at) {
    // First: its guard compares the incoming values with the stored ones, before they change.
    std::string guard = take_all;
    if (!any_greater.empty()) guard = "(" + guard + " OR (" + tie + " AND (" + any_greater + ")))";
    const std::string u = quote_identifier(meta::updated_at);
    names.push_back(u);
    values.push_back("UTC_TIMESTAMP(6)");
    updates.insert(updates.begin(), u + " = IF(" + guard + ", UTC_TIMESTAMP(6), " + u + ")");
  }
  if (ctx.soft_delete) {
    names.push_back(deleted);
    values.push_back("FALSE");
    // At equal CSN the row is kept or takes the image: either way not deleted.
    updates.push_back(deleted + " = IF(" + csn + " IS NULL OR " + csn + " <= " + in_csn +
                      ", FALSE, " + deleted + ")");
  }
  // Last: every guard above reads the old CSN.
  names.push_back(csn);
  values.push_back(in_csn);
  updates.push_back(csn + " = IF(" + newer + ", " + in_csn + ", " + csn + ")");
  count_first(updates);
  return "INSERT INTO " + quote_table(table.schema, table.name) + " (" + list(names) + ") SELECT " +
         list(values) + " FROM " + sql::with_tombstone(ctx, stage.table) +
         " WHERE (s._sluice_tomb IS NULL OR s._sluice_tomb <= s._sluice_row_csn)" +
         sql::held_only(table, key, ctx) + " ON DUPLICATE KEY UPDATE " + list(updates);
}

std::string insert_new_rows_sql(const target_table& table,
                                const std::vector<const column_def*>& key,
                                const std::vector<const column_def*>& columns,
                                const write_sql_context& ctx) {
  std::vector<std::string> names, values;
  for (const column_def* c : key)
    names.push_back(quote_identifier(c->name));
  for (const column_def* c : columns)
    names.push_back(quote_identifier(c->name));
  names.push_back(quote_identifier(meta::csn));
  values.assign(names.size(), "?");
  if (ctx.updated_at) {
    names.push_back(quote_identifier(meta::updated_at));
    values.push_back("UTC_TIMESTAMP(6)");
  }
  if (ctx.soft_delete) {
    names.push_back(quote_identifier(meta::deleted));
    values.push_back("FALSE");
  }
  return "INSERT INTO " + quote_table(table.schema, table.name) + " (" + list(names) +
         ") VALUES (" + list(values) + ")";
}

std::string any_tombstone_sql(const write_sql_context& ctx) {
  return "SELECT EXISTS (SELECT 1 FROM " + ctx.tombstones +
         " WHERE target_schema = ? AND target_table = ?)";
}

std::string missing_rows_sql(const target_table& table, const stage_def& stage,
                             const std::vector<const column_def*>& key,
                             const write_sql_context& ctx) {
  return "SELECT COUNT(*) FROM " + sql::with_tombstone(ctx, stage.table) +
         " WHERE (s._sluice_tomb IS NULL OR s._sluice_tomb <= s._sluice_row_csn) AND NOT EXISTS "
         "(SELECT 1 FROM " +
         quote_table(table.schema, table.name) + " AS d WHERE " + key_match(key) + ")";
}

std::string delete_rows_sql(const target_table& table, const stage_def& stage,
                            const std::vector<const column_def*>& key,
                            const write_sql_context& ctx) {
  const std::string from = quote_table(table.schema, table.name) + " AS d JOIN " +
                           quote_identifier(stage.table) + " AS s ON " + key_match(key);
  const std::string where =
      " WHERE " + older_than("d." + quote_identifier(meta::csn), "s._sluice_row_csn");
  if (ctx.soft_delete) {
    // No assignment reads another's column: the order of a multi-table UPDATE does not matter.
    return "UPDATE " + from + " SET d." + quote_identifier(meta::deleted) + " = TRUE, d." +
           quote_identifier(meta::csn) + " = s._sluice_row_csn" +
           (ctx.updated_at ? ", d." + quote_identifier(meta::updated_at) + " = UTC_TIMESTAMP(6)"
                           : std::string()) +
           where;
  }
  return "DELETE d FROM " + from + where;
}

namespace {

// A tombstone only rises: its key_json and time follow its CSN, which is assigned last.
std::string tombstone_raise(const std::string& in_csn, const std::string& in_json) {
  const std::string rise = "csn IS NULL OR csn < " + in_csn;
  return " ON DUPLICATE KEY UPDATE key_json = " +
         sql::counting("key_json", "IF(" + rise + ", " + in_json + ", key_json)") +
         ", deleted_at = IF(" + rise + ", UTC_TIMESTAMP(6), deleted_at), csn = IF(" + rise + ", " +
         in_csn + ", csn)";
}

constexpr const char* tombstone_columns =
    " (target_schema, target_table, key_hash, `key`, key_json, csn, deleted_at) ";

}  // namespace

std::string tombstones_sql(const stage_def& stage, const write_sql_context& ctx) {
  return "INSERT INTO " + ctx.tombstones + tombstone_columns + "SELECT ?, ?, " +
         sql::key_hash("s._sluice_key") +
         ", s._sluice_key, s._sluice_key_json, s._sluice_row_csn, UTC_TIMESTAMP(6) FROM " +
         quote_identifier(stage.table) + " s" +
         tombstone_raise(incoming(ctx, "csn", "s._sluice_row_csn"),
                         incoming(ctx, "key_json", "s._sluice_key_json"));
}

std::string truncate_rows_sql(const target_table& table, const std::string& csn, bool keyless,
                              const write_sql_context& ctx, const std::string& shard_column) {
  const std::string name = quote_table(table.schema, table.name);
  std::string where = " WHERE " + older_than(quote_identifier(meta::csn), csn);
  if (!shard_column.empty()) where += " AND " + quote_identifier(shard_column) + " = ?";
  // A soft delete keeps keyless rows: they are a log, marking them deleted means nothing.
  if (ctx.soft_delete && !keyless) {
    return "UPDATE " + name + " SET " + quote_identifier(meta::deleted) + " = TRUE, " +
           (ctx.updated_at ? quote_identifier(meta::updated_at) + " = UTC_TIMESTAMP(6), "
                           : std::string()) +
           quote_identifier(meta::csn) + " = " + csn + where;
  }
  return "DELETE FROM " + name + where;
}

std::string table_tombstone_sql(const std::string& csn, const write_sql_context& ctx) {
  // INSERT … SELECT, not VALUES: the server reports its records and duplicates (mysql_info).
  return "INSERT INTO " + ctx.tombstones + tombstone_columns + "SELECT ?, ?, " +
         sql::key_hash("''") + ", '', NULL, " + csn + ", UTC_TIMESTAMP(6) FROM DUAL" +
         tombstone_raise(csn, "NULL");
}

std::string append_sql(const target_table& table, const stage_def& stage,
                       const std::vector<const column_def*>& columns, append_once once,
                       const write_sql_context&) {
  std::vector<std::string> names, values;
  for (size_t i = 0; i < columns.size(); ++i) {
    names.push_back(quote_identifier(columns[i]->name));
    values.push_back("s." + value_alias(i));
  }
  const std::pair<const char*, const char*> meta_columns[] = {
      {meta::op, "_sluice_op"},
      {meta::csn, "_sluice_row_csn"},
      {meta::source_ts, "_sluice_source_ts"},
      {meta::tx, "_sluice_tx"},
      {meta::kafka_topic, "_sluice_topic"},
      {meta::kafka_partition, "_sluice_partition"},
      {meta::kafka_offset, "_sluice_offset"},
      {meta::kafka_index, "_sluice_index"}};
  for (const auto& [column, staged] : meta_columns) {
    names.push_back(quote_identifier(column));
    values.push_back(std::string("s.") + staged);
  }
  std::string out = "INSERT INTO " + quote_table(table.schema, table.name) + " (" + list(names) +
                    ") SELECT " + list(values) + " FROM " + quote_identifier(stage.table) + " s";
  const std::string index = quote_identifier(meta::kafka_index);
  if (once == append_once::any) {
    out += " ON DUPLICATE KEY UPDATE " + index + " = " + sql::counting(index, index);
  } else if (once == append_once::position) {
    std::string same;
    for (size_t i = 4; i < 8; ++i) {
      same += (same.empty() ? "" : " AND ") + quote_identifier(meta_columns[i].first) + " <=> s." +
              meta_columns[i].second;
    }
    // The same position: written already, nothing to do. Another row's key: a value the
    // integer column refuses, so that strict mode fails the batch and the row is isolated.
    out += " ON DUPLICATE KEY UPDATE " + index + " = " +
           sql::counting(index, "IF(" + same + ", " + index +
                                    ", 'sluice: a unique key of the table other than the source "
                                    "position refused this row')");
  }
  return out;
}

}  // namespace sluice::mdb
