#pragma once

#include <string_view>

namespace sluice::mdb {

// Which server the SQL text is for: MariaDB (run here, ≥ 10.6) or MySQL 8 (SPEC §6b: its text
// is unit-tested and documented, never run — Debian 12 ships no MySQL). Told apart by the
// server's version number (connection::server_version()): MySQL's are 8.x / 9.x, MariaDB's
// 10.x and up.
struct sql_dialect {
  // MySQL 8: no ADD COLUMN / ADD INDEX … IF NOT EXISTS (the caller reads information_schema
  // first), no utf8mb4_nopad_bin (its NO PAD binary collation is utf8mb4_0900_bin), no UUID
  // type, JSON a type of its own.
  bool mysql = false;
  // MariaDB ≥ 10.7 has a UUID type (16 bytes, compared as the value).
  bool uuid_type = true;

  static sql_dialect of_server(unsigned long version) {
    sql_dialect d;
    d.mysql = version < 100000;
    d.uuid_type = !d.mysql && version >= 100700;
    return d;
  }
  static sql_dialect mariadb() { return {}; }
  static sql_dialect mysql8() { return {true, false}; }

  // The binary NO PAD collation every text column gets: `a`, `A` and `a ` are three values
  // (utf8mb4_bin is PAD SPACE on MariaDB 10.11 and MySQL, and merges `a` with `a `).
  std::string_view text_collation() const {
    return mysql ? "utf8mb4_0900_bin" : "utf8mb4_nopad_bin";
  }
};

}  // namespace sluice::mdb
