#include "sinks/mariadb/plan/table_ddl.h"

#include "sinks/mariadb/plan/table_ddl_parts.h"

#include <algorithm>
#include <set>

#include "core/catalog/table_router.h"
#include "sinks/mariadb/plan/mdb_type.h"
#include "sinks/mariadb/plan/table_shape_reader.h"
#include "sinks/mariadb/sql/mdb_identifier.h"
#include "sinks/mariadb/sql/meta_columns.h"
#include "sinks/plan/change_dead_letter.h"
#include "sinks/plan/plan_rejects.h"

namespace sluice::mdb {
using namespace ddl_parts;

namespace {

using steady = std::chrono::steady_clock;

// How long one DDL statement waits for its metadata lock before it is tried again:
// mariadb.ddl.lock.timeout (apply_options::ddl_lock_timeout) in whole seconds, as
// lock_wait_timeout takes no fraction, at least 1; 0: the server's largest (a year). Short, so
// that an ALTER queued behind a long reader holds up the table's later readers (they queue
// behind the ALTER) that long at most.
int64_t lock_slice_seconds(std::chrono::milliseconds timeout) {
  if (timeout.count() <= 0) return 31'536'000;
  return std::max<int64_t>(1, (timeout.count() + 999) / 1000);
}

// Whether a DDL error says this table cannot be made so, rather than the server's state at the
// moment: SQLSTATE class 42 (privileges, syntax of an overridden type, bad names) but for the
// races of MySQL's DDL without IF NOT EXISTS (1050 table, 1060 column, 1061 index exists: run
// again) and a table dropped meanwhile (1146), and the limits of a definition (1005 cannot
// create, 1071 key too long, 1074 column too long, 1101 blob default, 1117 too many columns,
// 1118 row too large, 1163 type not supported, 1273/1115 unknown collation/charset, 1300 a name
// MariaDB's utf8mb3 identifiers cannot hold — a character beyond the BMP —, 1347 not a base
// table, 4161 unknown type in an override). Anything else (disk full, out of memory, lost
// connection) is not the table's.
bool refuses_table(const mdb_error& e) {
  switch (e.code()) {
    case 1050:
    case 1060:
    case 1061:
    case 1146:
      return false;
    case 1005:
    case 1071:
    case 1074:
    case 1101:
    case 1115:
    case 1117:
    case 1118:
    case 1163:
    case 1273:
    case 1300:
    case 1347:
    case 4161:
      return true;
    default:
      return e.sqlstate().starts_with("42");
  }
}

bool already_there(const mdb_error& e) {
  return e.code() == 1050 || e.code() == 1060 || e.code() == 1061;
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

std::string seconds_text(std::chrono::milliseconds d) {
  return d.count() % 1000 == 0 ? std::to_string(d.count() / 1000) + " s"
                               : std::to_string(d.count()) + " ms";
}

// Whether a collation compares exactly: binary and NO PAD (MariaDB's *_nopad_bin, MySQL's
// utf8mb4_0900_bin, the binary character set).
bool exact_collation(std::string_view c) {
  return c.empty() || c == "binary" || c.ends_with("_nopad_bin") || c == "utf8mb4_0900_bin";
}

// Sessions with an open InnoDB transaction, the oldest first (at most three): who may hold the
// metadata lock a DDL waits for (which table a transaction holds needs the metadata_lock_info
// plugin, seldom installed). Best effort: "" when nothing can be read (PROCESS privilege).
std::string open_transactions(connection& conn) {
  try {
    const result r = conn.query(
        "SELECT t.trx_mysql_thread_id, coalesce(p.user, ''), "
        "timestampdiff(SECOND, t.trx_started, now()) "
        "FROM information_schema.innodb_trx t LEFT JOIN information_schema.processlist p "
        "ON p.id = t.trx_mysql_thread_id WHERE t.trx_mysql_thread_id <> connection_id() "
        "ORDER BY t.trx_started LIMIT 3");
    std::string out;
    for (const auto& row : r.rows) {
      out += (out.empty() ? "" : "; ") + std::string("connection ") + row[0].value_or("?") +
             " (user " + row[1].value_or("") + ", transaction open " + row[2].value_or("?") + " s)";
    }
    return out;
  } catch (const mdb_error&) {
    if (conn.broken()) throw;
    return "";
  }
}

}  // namespace

// The session's settings for DDL, restored when it ends however it ends.
struct table_ddl::session_guard {
  connection& conn;
  std::string lock_wait_timeout, max_statement_time;

  session_guard(connection& c, std::chrono::milliseconds statement_timeout,
                std::chrono::milliseconds lock_timeout)
      : conn(c) {
    const result r = conn.query(
        "SELECT @@SESSION.lock_wait_timeout, @@SESSION.max_statement_time, "
        "@@SESSION.in_transaction");
    if (r.at(0, 2) == "1") {
      throw std::logic_error(
          "table_ddl::prepare() inside a transaction: MariaDB would commit it implicitly");
    }
    lock_wait_timeout = r.at(0, 0).value_or("31536000");
    max_statement_time = r.at(0, 1).value_or("0");
    conn.exec("SET SESSION lock_wait_timeout = " +
              std::to_string(lock_slice_seconds(lock_timeout)));
    const double seconds = double(statement_timeout.count()) / 1000.0;
    conn.exec("SET SESSION max_statement_time = " + std::to_string(seconds));
  }
  ~session_guard() {
    if (conn.broken()) return;  // a new connection starts from its own settings
    try {
      conn.exec("SET SESSION lock_wait_timeout = " + lock_wait_timeout);
      conn.exec("SET SESSION max_statement_time = " + max_statement_time);
    } catch (const mdb_error&) {
      // Lost meanwhile: the next connection is opened with the session's settings.
    }
  }
  session_guard(const session_guard&) = delete;
  session_guard& operator=(const session_guard&) = delete;
};

table_ddl::table_ddl(const apply_options& options, sql_dialect dialect)
    : _options(options), _dialect(dialect) {
  const auto fold = [&](const std::string& s) {
    return options.routing.lower_case ? lower_ascii(s) : s;
  };
  for (const auto& [table, columns] : options.column_types) {
    auto& out = _overrides[fold(table)];
    for (const auto& [column, type] : columns)
      out[fold(column)] = type;
  }
}

std::optional<std::string> table_ddl::key_refusal(const target_table& target,
                                                  const table_shape& shape) {
  const std::string where = label(target) + ": key column ";
  for (const std::string& name : shape.primary_key) {
    const column_def* c = shape.find(name);
    if (!c) continue;
    const std::string_view type = type_of(c->type);
    if (type.ends_with("text") || type.ends_with("blob") || type == "json") {
      return where + name + " is " + c->type +
             ": MariaDB indexes a prefix of it only, and keys sharing the prefix would be one "
             "row; make it varchar/varbinary with a NO PAD binary collation, or route the table "
             "elsewhere";
    }
    if (std::find(shape.prefixed_key.begin(), shape.prefixed_key.end(), name) !=
        shape.prefixed_key.end()) {
      return where + name +
             " is indexed by a prefix only: keys sharing the prefix would be one row";
    }
    if (exact_collation(c->collation)) continue;
    if (type.starts_with("char(") && c->collation.ends_with("_bin")) continue;
    const bool pad_bin = c->collation.ends_with("_bin");
    return where + name + " has collation " + c->collation +
           (pad_bin ? " (PAD SPACE: keys `a` and `a ` would be one row)"
                    : " (not binary: keys `a` and `A` would be one row)") +
           "; change it to " + std::string(sql_dialect{}.text_collation()) +
           " (ALTER TABLE … MODIFY), or route the table elsewhere";
  }
  return std::nullopt;
}

std::string table_ddl::check_key(table_plan& plan, const table_shape& shape,
                                 std::vector<dead_letter>& rejects) const {
  if (plan.keyless || !shape.exists || !has_items(plan)) return "";
  std::vector<std::string> have = shape.primary_key, want = plan.key_columns;
  std::sort(have.begin(), have.end());
  std::sort(want.begin(), want.end());
  std::string reason;
  if (have != want) {
    reason = shape.primary_key.empty()
                 ? label(plan.target) + " has no primary key and the changes are keyed by (" +
                       join_names(plan.key_columns) + "): add PRIMARY KEY (" +
                       join_names(plan.key_columns) + ") to adopt it, or route the table elsewhere"
                 : label(plan.target) + ": the table's primary key is (" +
                       join_names(shape.primary_key) + "), the changes are keyed by (" +
                       join_names(plan.key_columns) + ")";
  } else if (auto refused = key_refusal(plan.target, shape)) {
    reason = *refused;
  } else {
    return "";
  }
  for (size_t i = 0; i < plan.item_count(); ++i) {
    if (plan.rejected[i]) continue;
    plan.rejected[i] = 1;
    rejects.push_back(merged_row_dead_letter(*plan.rows, plan.row(i), reason,
                                             dead_letter_kind::rejected, &plan.target));
  }
  return reason;
}

void table_ddl::run_ddl(connection& conn, const std::string& sql, const target_table& t,
                        steady::time_point deadline, const waiting_fn& waiting) {
  const steady::time_point start = steady::now();
  for (;;) {
    try {
      conn.exec(sql);
      return;
    } catch (const mdb_error& e) {
      if (e.code() != 1205) throw;
      const auto waited =
          std::chrono::duration_cast<std::chrono::seconds>(steady::now() - start).count();
      if (_options.ddl_wait_limit.count() > 0 && steady::now() >= deadline) {
        const std::string holders = open_transactions(conn);
        throw mdb_error(1205, e.sqlstate(),
                        "DDL on " + label(t) + " waited past " +
                            seconds_text(_options.ddl_wait_limit) + " for its metadata lock" +
                            (holders.empty() ? "" : "; open transactions: " + holders));
      }
      if (waiting) {
        const std::string holders = open_transactions(conn);
        waiting("DDL on " + label(t) + " waits for its metadata lock (" +
                std::to_string(waited + lock_slice_seconds(_options.ddl_lock_timeout)) +
                " s so far)" + (holders.empty() ? "" : "; open transactions: " + holders));
      }
    }
  }
}

table_shape table_ddl::change_table(connection& conn, const target_table& t,
                                    const std::vector<table_plan*>& group, table_shape shape,
                                    bool& changed, const waiting_fn& waiting) {
  const steady::time_point deadline = steady::now() + _options.ddl_wait_limit;
  // MySQL's DDL has no IF NOT EXISTS for columns and indexes: a writer that got there first
  // makes it fail with "already there"; the shape is read again and the rest done.
  for (int attempt = 0;; ++attempt) {
    try {
      if (!shape.exists) {
        if (!_options.auto_create) {
          throw schema_error("table " + label(t) + " does not exist and auto.create is off");
        }
        table_definition def{t, {}, {}, false};
        for (table_plan* p : group) {
          if (!p->keyless && def.key.empty()) def.key = key_definitions(*p);
        }
        for (table_plan* p : group) {
          for (column_spec& c : missing_columns(*p, shape))
            add_unique(def.columns, std::move(c));
          def.position_index = def.position_index || needs_position_index(*p, shape);
        }
        // CREATE DATABASE IF NOT EXISTS still needs the CREATE privilege: only when missing.
        if (conn.query("SELECT 1 FROM information_schema.schemata WHERE schema_name = ?",
                       std::vector{param::text(t.schema)})
                .empty()) {
          run_ddl(conn, create_database_sql(t.schema, _dialect), t, deadline, waiting);
        }
        run_ddl(conn, create_table_sql(def, _dialect), t, deadline, waiting);
        changed = true;
      } else {
        std::vector<column_spec> add, widen;
        for (table_plan* p : group) {
          for (column_spec& c : missing_columns(*p, shape))
            add_unique(add, std::move(c));
          for (column_spec& c : widenings(*p, shape))
            add_unique(widen, std::move(c));
        }
        // sluice's own columns are its bookkeeping: added to an adopted table whatever
        // auto.evolve says; auto.evolve governs the stream's columns.
        const auto data = std::find_if(add.begin(), add.end(),
                                       [](const column_spec& c) { return !meta::is_own(c.name); });
        if (data != add.end() && !_options.auto_evolve) {
          throw schema_error("table " + label(t) + " lacks column " + data->name +
                             " and auto.evolve is off");
        }
        if (!add.empty()) run_ddl(conn, add_columns_sql(t, add, _dialect), t, deadline, waiting);
        if (!widen.empty()) run_ddl(conn, widen_columns_sql(t, widen), t, deadline, waiting);
        const bool index = std::any_of(group.begin(), group.end(), [&](const table_plan* p) {
          return needs_position_index(*p, shape);
        });
        if (index) run_ddl(conn, position_index_sql(t, _dialect), t, deadline, waiting);
        changed = changed || !add.empty() || !widen.empty() || index;
      }
    } catch (const mdb_error& e) {
      if (!already_there(e) || attempt >= 3) throw;
    }
    table_shape made = read_table_shape(conn, t, _dialect);
    if (!made.exists) {
      // CREATE TABLE IF NOT EXISTS only notes it when a view has the name.
      throw schema_error("cannot create table " + label(t) +
                         ": a view or other object of that name exists and is not a base table");
    }
    if (!work_needed(group, made) || attempt >= 3) return made;
    shape = std::move(made);
  }
}

std::vector<ddl_outcome> table_ddl::prepare(connection& conn, std::vector<table_plan>& plans,
                                            std::vector<dead_letter>& rejects,
                                            const waiting_fn& waiting) {
  std::map<target_table, std::vector<table_plan*>> by_target;
  std::map<target_table, ddl_outcome> outcomes;
  for (table_plan& p : plans) {
    if (!has_items(p) && !p.truncate) continue;
    by_target[p.target].push_back(&p);
    outcomes[p.target].table = p.target;
  }
  std::vector<target_table> pending;
  for (const auto& [t, group] : by_target) {
    if (_failed.contains(t)) continue;  // failed earlier in this batch: not tried again
    auto it = _shapes.find(t);
    if (it == _shapes.end() || work_needed(group, it->second)) pending.push_back(t);
  }
  if (!pending.empty()) {
    std::vector<table_shape> fresh = read_table_shapes(conn, pending, _dialect);
    std::optional<session_guard> guard;
    for (size_t i = 0; i < pending.size(); ++i) {
      const target_table& t = pending[i];
      if (!work_needed(by_target[t], fresh[i])) {
        cache(t, std::move(fresh[i]));
        continue;
      }
      if (!guard) guard.emplace(conn, _options.ddl_statement_timeout, _options.ddl_lock_timeout);
      ddl_outcome& out = outcomes[t];
      try {
        cache(t, change_table(conn, t, by_target[t], std::move(fresh[i]), out.changed, waiting));
        continue;
      } catch (const schema_error& e) {
        if (!_options.ddl_failure_dead_letters) throw;
        out.error = e.what();
      } catch (const mdb_error& e) {
        if (conn.broken()) throw;
        out.lock_timeout = e.code() == 1205;
        if (!_options.ddl_failure_dead_letters || (!out.lock_timeout && !refuses_table(e))) {
          throw;
        }
        out.error = std::to_string(e.code()) + " (" + e.sqlstate() + ") " + e.what();
      }
      _shapes.erase(t);  // not cached: the next batch reads it again
      _definitions.erase(t);
      _failed[t] = out.error;
    }
  }
  std::vector<ddl_outcome> done;
  for (auto& [t, group] : by_target) {
    ddl_outcome& out = outcomes[t];
    auto failed = _failed.find(t);
    for (table_plan* p : group) {
      if (failed != _failed.end()) {
        out.error = failed->second;
        reject_plan(*p, ddl_failure_reason(failed->second), dead_letter_kind::ddl_failed, rejects);
      } else if (std::string refused = check_key(*p, shape(t), rejects); !refused.empty()) {
        out.error = refused;
        out.key_refused = true;
      }
    }
    done.push_back(std::move(out));
  }
  return done;
}

}  // namespace sluice::mdb
