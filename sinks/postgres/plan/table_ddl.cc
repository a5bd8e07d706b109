#include "sinks/postgres/plan/table_ddl.h"

#include <algorithm>
#include <set>

#include <pqxx/except>
#include <pqxx/result>
#include <pqxx/transaction>

#include "core/catalog/table_router.h"
#include "sinks/plan/change_dead_letter.h"
#include "sinks/plan/plan_rejects.h"
#include "sinks/plan/type_growth.h"
#include "sinks/postgres/plan/ddl_locks.h"
#include "sinks/postgres/plan/pg_type.h"
#include "sinks/postgres/plan/table_shape_reader.h"
#include "sinks/postgres/session/key_locks.h"
#include "sinks/postgres/session/pg_error_policy.h"
#include "sinks/postgres/sql/advisory_lock_space.h"
#include "sinks/postgres/sql/pg_array.h"
#include "sinks/postgres/sql/pg_identifier.h"
#include "sinks/postgres/sql/write_sql.h"

namespace sluice {
namespace {

std::string label(const target_table& t) {
  return t.schema + "." + t.name;
}

bool has_items(const table_plan& plan) {
  return std::find(plan.rejected.begin(), plan.rejected.end(), 0) != plan.rejected.end();
}

void add_unique(std::vector<column_def>& list, column_def c) {
  for (const column_def& have : list) {
    if (have.name == c.name) return;
  }
  list.push_back(std::move(c));
}

// Whether a DDL error says this table cannot be made so — not the server's state at the
// moment: class 42 (a privilege, a view or other relation of that name, an invalid
// definition), class 54 (the column limit) and 0A000 (not supported). A race with another
// writer creating the same schema or table (23505, 42P06, 42P07) is run again instead, as
// is anything else (disk full, out of memory, I/O errors: not the table's fault).
bool refuses_table(std::string_view sqlstate) {
  if (sqlstate == "42P06" || sqlstate == "42P07") return false;
  return sqlstate.starts_with("42") || sqlstate.starts_with("54") || sqlstate == "0A000";
}

std::string ddl_failure_reason(const std::string& error) {
  return "cannot create or evolve the table (ddl.failure: dead_letter): " + error;
}

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names)
    out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

table_ddl::table_ddl(const apply_options& options) : _options(options) {
  const auto fold = [&](const std::string& s) {
    return options.routing.lower_case ? lower_ascii(s) : s;
  };
  for (const auto& [table, columns] : options.column_types) {
    auto& out = _overrides[fold(table)];
    for (const auto& [column, type] : columns)
      out[fold(column)] = type;
  }
}

const table_shape& table_ddl::shape(const target_table& target) const {
  static const table_shape none;
  auto it = _shapes.find(target);
  return it == _shapes.end() ? none : it->second;
}

const std::string* table_ddl::override_of(const target_table& target,
                                          const std::string& column) const {
  auto t = _overrides.find(label(target));
  if (t == _overrides.end()) return nullptr;
  auto c = t->second.find(column);
  return c == t->second.end() ? nullptr : &c->second;
}

// Precedence (SPEC §4): column.types > the existing column's type (a column that exists is
// never asked) > the stream's type > the JSON kinds of the values.
std::string table_ddl::column_type(const target_table& target, const planned_column& column) const {
  if (const std::string* configured = override_of(target, column.name)) return *configured;
  if (std::string typed = pg_type_for(column.type); !typed.empty()) return typed;
  return sql_type_for(column.kind, column.mixed);
}

std::vector<column_def> table_ddl::widenings(const table_plan& plan,
                                             const table_shape& shape) const {
  std::vector<column_def> out;
  if (!_options.auto_evolve_widen || !shape.exists || !needs_table(plan)) return out;
  for (const planned_column& col : plan.columns) {
    if (!col.type.known() || override_of(plan.target, col.name)) continue;
    const column_def* have = shape.find(col.name);
    if (!have) continue;
    // char(n) pads: turning it into varchar would change its values (and its family).
    if (have->type.starts_with("character(")) continue;
    const auto existing = portable_of_pg(have->type);
    // The type PostgreSQL would really get (a timestamp(9) is a timestamp(6)): compared as
    // such, a stream type beyond PostgreSQL's bounds does not "grow" the column every batch.
    const std::string wider = pg_type_for(col.type);
    const auto made = portable_of_pg(wider);
    if (!existing || !made || !type_grew(*existing, *made)) continue;
    add_unique(out, {col.name, wider});
  }
  return out;
}

std::vector<column_def> table_ddl::metadata_columns(const table_plan& plan, bool creating) const {
  if (plan.keyless) {
    return {{meta::op, "text"},
            {meta::csn, "bytea"},
            {meta::source_ts, "timestamptz"},
            {meta::tx, "text"},
            {meta::kafka_topic, "text"},
            {meta::kafka_partition, "integer"},
            {meta::kafka_offset, "bigint"},
            {meta::kafka_index, "integer"}};
  }
  std::vector<column_def> out = {{meta::csn, creating ? "bytea NOT NULL" : "bytea"},
                                 {meta::updated_at, "timestamptz"}};
  if (_options.deletes == apply_delete_mode::soft) {
    out.push_back({meta::deleted, "boolean NOT NULL DEFAULT false"});
  }
  // Kept from the first partial image on: rows written before read as "every column at
  // _sluice_csn" (write_sql.h).
  if (plan.partial) out.push_back({meta::col_csn, "jsonb"});
  return out;
}

bool table_ddl::needs_position_index(const table_plan& plan, const table_shape& shape) const {
  return plan.keyless && needs_table(plan) && !shape.position_index && !shape.partitioned;
}

bool table_ddl::needs_table(const table_plan& plan) const {
  for (const column_group& g : plan.groups) {
    for (uint32_t i : g.items) {
      if (!plan.rejected[i]) return true;
    }
  }
  return false;
}

std::vector<column_def> table_ddl::missing_columns(const table_plan& plan,
                                                   const table_shape& shape) const {
  std::vector<column_def> out;
  if (!has_items(plan)) return out;
  // Deletes need only the metadata; inserts also their columns.
  if (needs_table(plan)) {
    std::set<uint32_t> used;
    for (const column_group& g : plan.groups)
      used.insert(g.columns.begin(), g.columns.end());
    for (uint32_t c : used) {
      const planned_column& col = plan.columns[c];
      if (!shape.find(col.name)) add_unique(out, {col.name, column_type(plan.target, col)});
    }
  }
  if (shape.exists || needs_table(plan)) {
    for (column_def& m : metadata_columns(plan, !shape.exists)) {
      if (!shape.find(m.name)) add_unique(out, std::move(m));
    }
  }
  return out;
}

void table_ddl::check_key(table_plan& plan, const table_shape& shape,
                          std::vector<dead_letter>& rejects) {
  if (plan.keyless || !shape.exists || !has_items(plan)) return;
  std::vector<std::string> have = shape.primary_key, want = plan.key_columns;
  std::sort(have.begin(), have.end());
  std::sort(want.begin(), want.end());
  if (have == want) return;
  // A table without a primary key (a JDBC sink's under primary.key.mode=none) is not adopted
  // for keyed changes: without an index on the key every guarded write scans it, and nothing
  // keeps two rows of one key apart.
  const std::string reason =
      shape.primary_key.empty()
          ? label(plan.target) + " has no primary key and the changes are keyed by (" +
                join_names(plan.key_columns) + "): add PRIMARY KEY (" +
                join_names(plan.key_columns) + ") to adopt it, or route the table elsewhere"
          : label(plan.target) + ": the table's primary key is (" + join_names(shape.primary_key) +
                "), the changes are keyed by (" + join_names(plan.key_columns) + ")";
  for (size_t i = 0; i < plan.item_count(); ++i) {
    if (plan.rejected[i]) continue;
    plan.rejected[i] = 1;
    rejects.push_back(merged_row_dead_letter(*plan.rows, plan.row(i), reason,
                                             dead_letter_kind::rejected, &plan.target));
  }
}

void table_ddl::refresh(pqxx::transaction_base& tx, const std::vector<table_plan>& plans) {
  std::vector<const target_table*> targets;
  for (const table_plan& p : plans) {
    if (_shapes.count(p.target) &&
        std::none_of(targets.begin(), targets.end(),
                     [&](const target_table* t) { return *t == p.target; })) {
      targets.push_back(&p.target);
    }
  }
  if (targets.empty()) return;
  pg_array schemas, names;
  for (const target_table* t : targets) {
    schemas.add(t->schema);
    names.add(t->name);
  }
  // Per table, in order: its live column count (0: no table) and whether it keeps per-column
  // CSNs — what a change by another writer would have changed.
  const pqxx::result r = tx.exec_params(
      R"(SELECT (SELECT count(*) FROM pg_attribute a
                  WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped),
                EXISTS (SELECT 1 FROM pg_attribute a
                         WHERE a.attrelid = c.oid AND a.attname = $3 AND NOT a.attisdropped)
           FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(s, t, i)
           LEFT JOIN pg_namespace n ON n.nspname = u.s
           LEFT JOIN pg_class c ON c.relnamespace = n.oid AND c.relname = u.t
                               AND c.relkind IN ('r', 'p')
          ORDER BY u.i)",
      schemas.take(), names.take(), std::string(meta::col_csn));
  for (size_t i = 0; i < targets.size() && i < r.size(); ++i) {
    table_shape& cached = _shapes[*targets[i]];
    const auto columns = r[static_cast<pqxx::result::size_type>(i)][0].as<size_t>();
    const bool versioned = r[static_cast<pqxx::result::size_type>(i)][1].as<bool>();
    if (columns == cached.columns.size() && versioned == (cached.find(meta::col_csn) != nullptr)) {
      continue;
    }
    cached = read_table_shape(tx, *targets[i]);
  }
}

bool table_ddl::ready(const std::vector<table_plan>& plans) const {
  for (const table_plan& p : plans) {
    if (!has_items(p) && !p.truncate) continue;
    if (_failed.contains(p.target)) continue;  // refused by prepare(), without DDL
    auto it = _shapes.find(p.target);
    if (it == _shapes.end()) return false;
    if ((needs_table(p) && !it->second.exists) || !missing_columns(p, it->second).empty() ||
        !widenings(p, it->second).empty() || needs_position_index(p, it->second)) {
      return false;
    }
  }
  return true;
}

// Every statement here runs through exec_params: libpqxx 6.4's exec() aborts the whole
// transaction object when its statement fails, and prepare() must roll back to its savepoint
// and go on with the other tables.
table_shape table_ddl::change_table(pqxx::dbtransaction& tx, const target_table& t,
                                    const std::vector<table_plan*>& group) {
  table_shape shape = read_table_shape(tx, t);
  if (!shape.exists) {
    if (!_options.auto_create) {
      throw schema_error("table " + label(t) + " does not exist and auto.create is off");
    }
    table_definition def{t, {}, {}};
    for (table_plan* p : group) {
      if (p->keyless || !def.key.empty()) continue;
      for (size_t k = 0; k < p->key_columns.size(); ++k) {
        planned_column key_col{p->key_columns[k], {}, p->key_kinds[k], false, {}};
        if (k < p->key_types.size()) key_col.type = p->key_types[k];
        def.key.push_back({key_col.name, column_type(t, key_col)});
      }
    }
    for (table_plan* p : group) {
      for (column_def& c : missing_columns(*p, shape))
        add_unique(def.columns, std::move(c));
    }
    // CREATE SCHEMA IF NOT EXISTS still needs the CREATE privilege: only when it is missing.
    if (tx.exec_params("SELECT 1 FROM pg_namespace WHERE nspname = $1", t.schema).empty()) {
      tx.exec_params("CREATE SCHEMA IF NOT EXISTS " + quote_identifier(t.schema));
    }
    tx.exec_params(create_table_sql(def));
  } else {
    std::vector<column_def> add, widen;
    for (table_plan* p : group) {
      for (column_def& c : missing_columns(*p, shape))
        add_unique(add, std::move(c));
      for (column_def& c : widenings(*p, shape))
        add_unique(widen, std::move(c));
    }
    if (add.empty() && widen.empty()) return with_position_index(tx, t, group, shape);
    // sluice's own columns (_sluice_csn…) are its bookkeeping, not the stream's: added to a
    // table it adopts (one a JDBC sink built) whatever auto.evolve says; their rows read as
    // older than any change (NULL CSN). auto.evolve governs the stream's columns only.
    const auto data = std::find_if(add.begin(), add.end(),
                                   [](const column_def& c) { return !meta::is_own(c.name); });
    if (data != add.end() && !_options.auto_evolve) {
      throw schema_error("table " + label(t) + " lacks column " + data->name +
                         " and auto.evolve is off");
    }
    if (!add.empty()) tx.exec_params(add_columns_sql(t, add));
    if (!widen.empty()) tx.exec_params(widen_columns_sql(t, widen));
  }
  table_shape made = read_table_shape(tx, t);
  if (!made.exists) {
    // CREATE TABLE IF NOT EXISTS skips, with a notice, when a view, sequence or foreign
    // table has the name.
    throw schema_error("cannot create table " + label(t) +
                       ": a relation of that name exists and is not a table (a view?)");
  }
  return with_position_index(tx, t, group, made);
}

// An append writes each source position once: ON CONFLICT on a unique index of the position,
// made once per table (on a table another sink built too: it is sluice's bookkeeping, like its
// columns). Rows appended before it had no index (nothing appended twice since) keep NULLs.
table_shape table_ddl::with_position_index(pqxx::dbtransaction& tx, const target_table& t,
                                           const std::vector<table_plan*>& group,
                                           table_shape shape) {
  if (std::none_of(group.begin(), group.end(),
                   [&](const table_plan* p) { return needs_position_index(*p, shape); }))
    return shape;
  tx.exec_params(position_index_sql(t));
  shape.position_index = true;
  return shape;
}

void table_ddl::prepare(pqxx::connection_base& conn, std::vector<table_plan>& plans,
                        std::vector<dead_letter>& rejects) {
  // Plans by target: a table may have a keyed and a keyless plan in one batch. A table
  // whose DDL failed earlier in this batch is not tried again: its items are refused.
  std::map<target_table, std::vector<table_plan*>> by_target;
  for (table_plan& p : plans) {
    if (!has_items(p) && !p.truncate) continue;
    if (auto failed = _failed.find(p.target); failed != _failed.end()) {
      reject_plan(p, ddl_failure_reason(failed->second), dead_letter_kind::ddl_failed, rejects);
      continue;
    }
    // A truncate alone needs no DDL, but the writer needs to know whether the table exists.
    by_target[p.target].push_back(&p);
  }
  auto work_needed = [&](const target_table& t, const table_shape& shape) {
    for (const table_plan* p : by_target[t]) {
      if ((needs_table(*p) && !shape.exists) || !missing_columns(*p, shape).empty() ||
          !widenings(*p, shape).empty() || needs_position_index(*p, shape)) {
        return true;
      }
    }
    return false;
  };
  std::vector<target_table> pending;
  for (const auto& [t, _] : by_target) {
    auto it = _shapes.find(t);
    if (it == _shapes.end() || work_needed(t, it->second)) pending.push_back(t);
  }
  if (!pending.empty()) {
    pqxx::work tx(conn, "sluice_ddl");
    std::map<target_table, table_shape> fresh;
    std::vector<target_table> to_change;
    for (const target_table& t : pending) {
      fresh[t] = read_table_shape(tx, t);
      if (work_needed(t, fresh[t])) to_change.push_back(t);
    }
    if (!to_change.empty()) {
      // Serialize with other lanes and instances changing the same tables, then look again:
      // one of them may have done it.
      std::vector<int32_t> keys;
      for (const target_table& t : to_change)
        keys.push_back(table_lock_key(t));
      std::sort(keys.begin(), keys.end());
      keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
      pg_array arr;
      for (int32_t k : keys)
        arr.add_int(k);
      tx.exec_params("SELECT count(pg_advisory_xact_lock($1, k)) FROM unnest($2::int4[]) AS k",
                     advisory_lock_space::ddl, arr.take());
      set_local(tx, "lock_timeout", _options.ddl_lock_timeout);
      set_local(tx, "statement_timeout", _options.ddl_statement_timeout);
      struct long_statements {
        const std::function<void(bool)>& off_clock;
        explicit long_statements(const std::function<void(bool)>& f) : off_clock(f) {
          if (off_clock) off_clock(true);
        }
        ~long_statements() {
          if (off_clock) off_clock(false);
        }
      } off_clock(_off_clock);
      for (const target_table& t : to_change) {
        // Savepoints by hand: libpqxx 6.4's subtransaction does not open its savepoint
        // before exec_params().
        tx.exec("SAVEPOINT sluice_ddl");
        std::string failure;
        try {
          fresh[t] = change_table(tx, t, by_target[t]);
          tx.exec("RELEASE SAVEPOINT sluice_ddl");
          continue;
        } catch (const schema_error& e) {
          if (!_options.ddl_failure_dead_letters) throw;
          failure = e.what();
        } catch (const pqxx::sql_error& e) {
          const pg_error_class c = classify_pg_error(e);
          if (c.sqlstate == "55P03") {
            // Thrown with who holds the table: the session retries it with jitter, quietly
            // errors.retry.max times, then DEGRADED with this text.
            tx.exec("ROLLBACK TO SAVEPOINT sluice_ddl");
            const std::string holders = lock_holders(tx, t);
            throw pqxx::sql_error(
                "DDL on " + label(t) + " waited past postgres.ddl.lock.timeout (" +
                    seconds_text(_options.ddl_lock_timeout) + ") for its lock, " +
                    (holders.empty() ? std::string("since let go") : "held by " + holders),
                e.query(), "55P03");
          }
          if (!_options.ddl_failure_dead_letters || !refuses_table(c.sqlstate)) throw;
          failure = c.sqlstate + " " + c.message;
        }
        tx.exec("ROLLBACK TO SAVEPOINT sluice_ddl");
        tx.exec("RELEASE SAVEPOINT sluice_ddl");
        fresh.erase(t);  // not cached: the next batch tries again
        _failed[t] = std::move(failure);
      }
    }
    tx.commit();
    for (auto& [t, shape] : fresh)
      _shapes[t] = std::move(shape);
  }
  for (auto& [t, group] : by_target) {
    auto failed = _failed.find(t);
    for (table_plan* p : group) {
      if (failed != _failed.end()) {
        reject_plan(*p, ddl_failure_reason(failed->second), dead_letter_kind::ddl_failed, rejects);
      } else {
        check_key(*p, shape(t), rejects);
      }
    }
  }
}

}  // namespace sluice
