#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace sluice::mdb {
class connection;
}

namespace sluice::testing {

// e2e_bench's MariaDB side (run_e2e_bench.sh --target mariadb): the server that
// integration/services/mariadb.sh started in $SLUICE_RUN_DIR, sluice's progress there, and the
// same-run reference — a raw LOAD DATA LOCAL INFILE of the rows the PostgreSQL run COPYs, fed
// from memory through Connector/C's infile handler, one statement (autocommit: one transaction)
// per batch, into a table LIKE sluice's.
//
// Lifecycle: one per phase; the constructor connects (local_infile on). Threading: one thread.
class mariadb_bench {
 public:
  mariadb_bench();
  ~mariadb_bench();
  mariadb_bench(const mariadb_bench&) = delete;
  mariadb_bench& operator=(const mariadb_bench&) = delete;

  // The `mariadb:` section of sluice's config (the run dir's mariadb.dsn).
  static std::string config_section();
  // `public`.`name`: where sluice writes the source table public.name.
  static std::string table(const std::string& name);

  // sum(next_offset) of the connector in `sluice`.offsets (0 before the table exists).
  int64_t committed(const std::string& connector);
  int64_t count(const std::string& table_sql);
  void exec(const std::string& sql);
  // Each value of the query's first column as a number (the latency phase's samples).
  std::vector<double> numbers(const std::string& sql);

  // COPY text lines (the workload's, PostgreSQL's text format) rewritten for LOAD DATA into
  // the columns of table(name) (their types read from information_schema): booleans t/f as
  // 1/0, timestamps without 'T' and 'Z', bytea hex (\\x…) as the bytes themselves, escaped.
  // Done before the clock starts.
  std::vector<std::string> convert(const std::string& name, const std::vector<std::string>& columns,
                                   const std::vector<std::string>& copy_batches);
  // One LOAD DATA LOCAL INFILE of `lines` (convert's) into table_sql; the server's warnings
  // (a value it changed) are counted in warnings().
  void load(const std::string& table_sql, const std::vector<std::string>& columns,
            const std::string& lines);
  uint64_t warnings() const { return _warnings; }

 private:
  std::unique_ptr<mdb::connection> _conn;
  uint64_t _warnings = 0;
};

}  // namespace sluice::testing
