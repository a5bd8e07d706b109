#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/model/value.h"

namespace sluice::mdb {

// What a MariaDB column's type asks of the values staged for it (the model:
// postgres/write/value_target.h). Decided once per column of a statement from the type
// information_schema prints, never per value. The stage is permissive (longtext, longblob):
// these are only the forms in which the strict INSERT … SELECT converts them as the source
// meant.
enum class value_target : uint8_t {
  text,      // char, varchar, text, enum, set…: the value's text (booleans "true"/"false")
  binary,    // binary, varbinary, blobs: bytes as bytes; any other kind as its text
  json,      // json: the value as a JSON token (a string quoted, bytes a base64 JSON string)
  number,    // integers, decimals, floats, bit, year: the text; booleans 1 / 0
  datetime,  // datetime, timestamp: ISO text with a zone normalised to UTC
             // 'YYYY-MM-DD HH:MM:SS.ffffff' (MariaDB reads no zone in a datetime literal)
};

value_target target_of(std::string_view mariadb_type);

// One value as staged: NULL, text or bytes (sent without a character set).
struct rendered_value {
  enum class form : uint8_t { null, text, bytes } what = form::null;
  std::string_view text;  // into the value, a constant, or scratch
};

// The value for a column of target t. scratch: a buffer reused between calls (text made for the
// value lives there until the next call with it). Bytes into a non-binary column are their
// base64 text, as on PostgreSQL. A timestamp that does not parse goes as it came: the strict
// conversion refuses it and the row is a dead letter.
rendered_value render_value(const value& v, value_target t, std::string& scratch);

// ISO 8601 date-time text ("2026-07-13T04:01:01.123456+02:00", "… 04:01:01Z", "…T04:01:01")
// as MariaDB's datetime(6) text in UTC, appended to out; false (out untouched) when the text is
// not such a date-time. Text without a zone is taken as UTC (the session's time zone).
// Fractions beyond microseconds are cut.
bool append_utc_datetime(std::string& out, std::string_view text);
// Microseconds since the epoch as 'YYYY-MM-DD HH:MM:SS.ffffff' UTC.
void append_utc_micros(std::string& out, int64_t micros);

}  // namespace sluice::mdb
