#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "sinks/mariadb/session/mdb_connection.h"

namespace sluice::mdb {

// connection::exec_bulk's path where MariaDB's array binding is missing: MySQL 8's server has
// no bulk execution (Connector/C refuses an array-bound execute there), nor has a server
// without the MARIADB_CLIENT_STMT_BULK_OPERATIONS capability. There the rows go as multi-row
// `INSERT … VALUES (?, ?), (?, ?) …` statements, still prepared with the values as data: the
// statement's one row of placeholders repeated, in chunks bounded by the server's 65,535
// placeholders and by max_allowed_packet. local_infile is off on MySQL 8 by default, so LOAD
// DATA is no way out there.

// An INSERT (or REPLACE) split around its one row of placeholders: head up to the row, the
// row "(?, ?, …)", the tail after it (ON DUPLICATE KEY UPDATE …, MySQL's row alias).
struct values_row {
  std::string head, row, tail;
};

// nullopt when the statement is not an INSERT / REPLACE whose first VALUES row holds every
// placeholder (an UPDATE, an INSERT … SELECT, a placeholder in the tail): such a statement is
// run once per row instead. Quoted text ('…', "…", `…`) is skipped: a `?` or a parenthesis in a
// literal or an identifier is not the row's.
std::optional<values_row> split_values_row(std::string_view sql);

// The statement with `rows` copies of the row, ", " between them.
std::string multi_row_sql(const values_row& v, size_t rows);

// The server's limit on the placeholders of one prepared statement.
inline constexpr size_t max_placeholders = 65535;

// How many rows from row `first` on go in the next statement: a power of two (so that a
// statement has at most 17 texts, whatever the batch sizes: the statement cache stays small),
// within max_placeholders / width placeholders and an execute packet of at most
// `packet_limit` bytes (max_allowed_packet). At least one row: a row over the limit alone is
// the server's to refuse, as it is under array binding.
size_t rows_in_chunk(size_t width, std::span<const param> cells, size_t first, size_t packet_limit);

}  // namespace sluice::mdb
