#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/column_type.h"
#include "core/model/value.h"
#include "sinks/mariadb/sql/sql_dialect.h"

namespace sluice::mdb {

// MariaDB's side of the portable column types (SPEC §3 "Avro and column types", §4 "Schema",
// §6b; the model: postgres/plan/pg_type.h): the column definition auto.create and auto.evolve
// give a column — its type and, for text, its character set and collation, as SQL text to put
// after the column's name —, and the portable reading of a column's type as
// information_schema.columns.column_type prints it, to tell a widening from a narrowing.
//
// The choices, and why:
// - Text is utf8mb4 with the binary NO PAD collation (sql_dialect::text_collation()), key or not:
//   comparisons are exact (the default _ci collations merge `a`, `A` and `a `; utf8mb4_bin is
//   PAD SPACE and merges `a` and `a `). A stated length up to max_varchar_chars is varchar(n);
//   longer or unstated, longtext (varchar(n) counts n × 4 bytes against the 65,535-byte row
//   limit, longtext 12). A key column is varchar(n) always (`text` cannot be a primary key
//   without a prefix, and a prefix merges keys sharing it), n chosen by key_types().
// - Zoned timestamps are datetime(p) holding UTC (sluice sessions run with time_zone '+00:00';
//   MariaDB's TIMESTAMP ends in 2038); naive ones datetime(p); p is the stream's, at most 6,
//   else 6. A time with a zone has no MariaDB type: its text (longtext).
// - decimal(p,s) up to MariaDB's 65 digits and scale 38. Wider stated bounds become longtext,
//   the number's exact text (no arithmetic in SQL, but no value lost). An unconstrained decimal
//   and an untyped JSON number become decimal(65,30): a value with more than 35 integer or 30
//   fractional digits does not fit — MariaDB refuses the first (1264, strict mode) but rounds
//   the second with a mere note, so the writer checks decimal_fits() first and dead-letters the
//   row, naming the column: never a silent rounding. (double was the other choice: it rounds
//   every 17th digit silently.)
// - uuid is MariaDB's UUID (≥ 10.7), else char(36) ascii with the NO PAD binary collation
//   (the writer sends the canonical lowercase text). bytes: longblob, a key varbinary(n).
//   json and arrays (MariaDB has none): json (MariaDB: longtext with a json_valid check).
//   boolean: tinyint(1). interval, xml and everything carried as text: longtext.
// MySQL 8 (sql_dialect::mysql, not run here): utf8mb4_0900_bin, no UUID type (char(36)
// ascii_bin, fixed-length and never space-ended, so PAD SPACE cannot merge two), JSON its own
// type.

// Longest varchar a non-key text column gets; longer is longtext.
inline constexpr int32_t max_varchar_chars = 255;
// InnoDB's limit on an index's key (DYNAMIC rows, innodb_page_size 16k): what the whole
// primary key fits in.
inline constexpr size_t max_key_bytes = 3072;
// MariaDB's decimal bounds.
inline constexpr int32_t max_decimal_precision = 65;
inline constexpr int32_t max_decimal_scale = 38;

// The definition for a stream's type ("int", "decimal(12,2)", "varchar(80) CHARACTER SET
// utf8mb4 COLLATE utf8mb4_nopad_bin", "datetime(6)", "json"…); empty for unknown.
std::string mdb_type_for(const column_type& type, sql_dialect dialect = {});
// The definition for an untyped column from its values' JSON kinds (SPEC §4): number →
// decimal(65,30), string → longtext, boolean → boolean, object/array → json, bytes →
// longblob, only nulls so far or mixed kinds → longtext.
std::string mdb_type_for_kind(value_kind kind, bool mixed, sql_dialect dialect = {});

// A key column as the stream gave it: its type (unknown: untyped) and its values' kind.
struct key_column {
  column_type type;
  value_kind kind = value_kind::string;
};
// The definitions of a primary key's columns, in order: fixed-size types as above, text
// varchar(n) and bytes varbinary(n) with n shared out so that the key stays within
// max_key_bytes (utf8mb4: 4 bytes a character) — a stated length shorter than its share is
// kept, and what it leaves goes to the others. A value longer than its column is refused by
// the server (strict mode: 1406), a dead letter.
std::vector<std::string> key_types(const std::vector<key_column>& key, sql_dialect dialect = {});

// The portable type of a column as information_schema.columns.column_type prints it
// ("int(11)", "decimal(12,2)", "varchar(80)", "tinyint(1)", "datetime(6)", "bigint(20)
// unsigned"); MariaDB's json prints "longtext": the shape reader names it "json". Nothing for
// types sluice does not compare (geometry, enum, set, bit…).
std::optional<column_type> portable_of_mdb(std::string_view column_type);

// Whether a JSON number (as the source wrote it: sign, digits, fraction, exponent) is a value of
// decimal(precision, scale) without rounding: at most precision − scale integer digits and scale
// fractional digits (leading and trailing zeros aside). Not a number: false.
bool decimal_fits(std::string_view number, int32_t precision, int32_t scale);

}  // namespace sluice::mdb
