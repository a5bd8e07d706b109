#include "schemas/debezium/debezium_column_type.h"

#include <cstdint>
#include <optional>
#include <string_view>

namespace sluice {
namespace {

// PostgreSQL reports an unbounded length (text, bytea…) as INT32_MAX.
constexpr int32_t unbounded_length = 2147483647;

column_type of(type_id id, int32_t precision = column_type::no_precision) {
  column_type t;
  t.id = id;
  t.precision = precision;
  return t;
}

// A Connect type without a logical name.
column_type connect_primitive(std::string_view type) {
  if (type == "int8" || type == "int16") return of(type_id::int16);  // int8: Connect's byte
  if (type == "int32") return of(type_id::int32);
  if (type == "int64") return of(type_id::int64);
  if (type == "float32" || type == "float") return of(type_id::float32);
  if (type == "float64" || type == "double") return of(type_id::float64);
  if (type == "boolean") return of(type_id::boolean);
  if (type == "string") return of(type_id::string);
  if (type == "bytes") return of(type_id::bytes);
  if (type == "struct" || type == "map") return of(type_id::json);
  return of(type_id::unknown);
}

struct logical_type {
  std::string_view name;
  type_id id;
  int32_t precision;
};

constexpr int32_t none = column_type::no_precision;
constexpr logical_type logical_types[] = {
    {"io.debezium.data.VariableScaleDecimal", type_id::decimal, none},
    {"io.debezium.time.Date", type_id::date, none},
    {"org.apache.kafka.connect.data.Date", type_id::date, none},
    {"io.debezium.time.Time", type_id::time, 3},
    {"io.debezium.time.MicroTime", type_id::time, 6},
    {"io.debezium.time.NanoTime", type_id::time, 6},  // PostgreSQL keeps microseconds
    {"org.apache.kafka.connect.data.Time", type_id::time, 3},
    {"io.debezium.time.Timestamp", type_id::timestamp, 3},
    {"io.debezium.time.MicroTimestamp", type_id::timestamp, 6},
    {"io.debezium.time.NanoTimestamp", type_id::timestamp, 6},
    {"org.apache.kafka.connect.data.Timestamp", type_id::timestamp, 3},
    {"io.debezium.time.ZonedTimestamp", type_id::timestamptz, none},
    {"io.debezium.time.ZonedTime", type_id::timetz, none},
    {"io.debezium.data.Uuid", type_id::uuid, none},
    {"io.debezium.data.Json", type_id::json, none},
    {"io.debezium.data.Xml", type_id::xml, none},
    {"io.debezium.data.Enum", type_id::text, none},
    {"io.debezium.data.EnumSet", type_id::text, none},
    {"io.debezium.data.Bits", type_id::text, none},
    {"io.debezium.time.Interval", type_id::interval, none},
    {"io.debezium.time.MicroDuration", type_id::interval, none},
};

bool any_of(std::string_view name, std::initializer_list<std::string_view> names);

// A Connect type with its logical name, for one value (a column or an array's element).
column_type connect_type(std::string_view type, std::string_view name,
                         std::optional<int32_t> precision, std::optional<int32_t> scale) {
  if (name == "org.apache.kafka.connect.data.Decimal") {
    column_type t = of(type_id::decimal);
    if (precision && *precision > 0 && scale && *scale >= 0 && *scale <= *precision) {
      t.precision = *precision;
      t.scale = *scale;
    }
    return t;
  }
  for (const logical_type& l : logical_types) {
    if (l.name == name) return of(l.id, l.precision);
  }
  return connect_primitive(type);
}

column_type from_connect(const connect_field_schema& f) {
  if (f.type != "array") return connect_type(f.type, f.name, f.precision, f.scale);
  // Arrays of arrays: PostgreSQL's arrays do not nest (and Debezium sends none).
  if (f.items_type == "array") return of(type_id::json);
  // The value decoder converts no array element: an element with a logical type that needs
  // converting (days, microseconds, unscaled decimal bytes) would not enter a date[],
  // timestamp[] or numeric[] column. Such arrays stay JSON.
  if (!f.items_name.empty() &&
      !any_of(f.items_name, {"io.debezium.data.Uuid", "io.debezium.data.Json",
                             "io.debezium.data.Enum", "io.debezium.data.Xml",
                             "io.debezium.time.ZonedTimestamp", "io.debezium.time.ZonedTime"})) {
    return of(type_id::json);
  }
  column_type t = connect_type(f.items_type, f.items_name, std::nullopt, std::nullopt);
  if (t.known()) t.array = true;
  return t;
}

bool in_range(std::optional<int32_t> v, int32_t low, int32_t high) {
  return v && *v >= low && *v <= high;
}

// A character or bit length worth keeping: PostgreSQL's "no limit" is INT32_MAX.
std::optional<int32_t> bounded(std::optional<int32_t> length) {
  if (in_range(length, 1, unbounded_length - 1)) return length;
  return std::nullopt;
}

bool any_of(std::string_view name, std::initializer_list<std::string_view> names) {
  for (std::string_view n : names) {
    if (n == name) return true;
  }
  return false;
}

// Fractional second digits of a time type: the propagated scale (PostgreSQL), else the
// length when it reads as one (MySQL's DATETIME(fsp) reports fsp as the length).
int32_t time_precision(const connect_field_schema& f) {
  if (in_range(f.source_scale, 0, 6)) return *f.source_scale;
  if (in_range(f.source_length, 0, 6)) return *f.source_length;
  return column_type::no_precision;
}

// The upper-case PostgreSQL (typname) or MySQL name of one element type; nothing for
// names sluice does not know.
std::optional<column_type> source_element(std::string_view name, const connect_field_schema& f,
                                          const column_type& connect) {
  if (any_of(name, {"INT2", "SMALLINT", "TINYINT", "TINYINT UNSIGNED"})) {
    return of(type_id::int16);
  }
  if (any_of(name, {"INT4", "INT", "INTEGER", "MEDIUMINT", "SMALLINT UNSIGNED",
                    "MEDIUMINT UNSIGNED", "YEAR"})) {
    return of(type_id::int32);
  }
  if (any_of(name, {"INT8", "BIGINT", "INT UNSIGNED", "INTEGER UNSIGNED"})) {
    return of(type_id::int64);
  }
  if (name == "BIGINT UNSIGNED") {
    column_type t = of(type_id::decimal);
    t.precision = 20;
    return t;
  }
  if (any_of(name, {"FLOAT4", "FLOAT"})) return of(type_id::float32);
  if (any_of(name, {"FLOAT8", "DOUBLE", "DOUBLE PRECISION"})) return of(type_id::float64);
  if (any_of(name, {"NUMERIC", "DECIMAL"})) {
    column_type t = of(type_id::decimal);  // length 0: PostgreSQL's unconstrained numeric
    if (in_range(f.source_length, 1, 1000) &&
        in_range(f.source_scale.value_or(0), 0, *f.source_length)) {
      t.precision = *f.source_length;
      t.scale = f.source_scale.value_or(0);
    }
    return t;
  }
  if (any_of(name, {"VARCHAR", "BPCHAR", "CHAR"})) {
    column_type t = of(type_id::string);
    if (auto length = bounded(f.source_length)) t.length = *length;
    return t;
  }
  if (any_of(name, {"TEXT", "TINYTEXT", "MEDIUMTEXT", "LONGTEXT", "CITEXT", "NAME"})) {
    return of(type_id::string);
  }
  if (any_of(name,
             {"BYTEA", "BLOB", "TINYBLOB", "MEDIUMBLOB", "LONGBLOB", "BINARY", "VARBINARY"})) {
    return of(type_id::bytes);
  }
  if (name == "UUID") return of(type_id::uuid);
  if (any_of(name, {"JSON", "JSONB"})) return of(type_id::json);
  if (name == "XML") return of(type_id::xml);
  if (name == "DATE") return of(type_id::date);
  if (name == "TIME") return of(type_id::time, time_precision(f));
  if (name == "TIMETZ") return of(type_id::timetz, time_precision(f));
  if (name == "DATETIME") return of(type_id::timestamp, time_precision(f));
  if (name == "TIMESTAMPTZ") return of(type_id::timestamptz, time_precision(f));
  if (name == "TIMESTAMP") {
    // PostgreSQL's is without time zone (Micro/Timestamp); MySQL's is an instant
    // (ZonedTimestamp): the Connect type tells them apart.
    const bool instant = connect.id == type_id::timestamptz;
    return of(instant ? type_id::timestamptz : type_id::timestamp, time_precision(f));
  }
  if (name == "INTERVAL") return of(type_id::interval);
  if (any_of(name, {"BOOL", "BOOLEAN"})) return of(type_id::boolean);
  if (any_of(name, {"BIT", "VARBIT"})) {
    // MySQL's BIT(1) arrives as a Connect boolean; other bit strings as their text.
    return of(connect.id == type_id::boolean ? type_id::boolean : type_id::text);
  }
  if (any_of(name, {"ENUM", "SET"})) return of(type_id::text);
  return std::nullopt;
}

}  // namespace

column_type debezium_column_type(const connect_field_schema& field) {
  const column_type connect = from_connect(field);
  std::string_view name = field.source_type;
  if (name.empty()) return connect;
  const bool array = name.size() > 1 && name.front() == '_';  // PostgreSQL's array typname
  if (array) name.remove_prefix(1);
  column_type element = connect;
  element.array = false;
  auto source = source_element(name, field, element);
  if (!source) return connect;
  // The source's type wins only where the values sent can enter it: with
  // binary.handling.mode base64 or hex a BYTEA arrives as text (not bytes), a TINYINT(1) may
  // arrive as a boolean, and an array whose elements need converting stays JSON.
  if ((source->id == type_id::bytes) != (element.id == type_id::bytes) ||
      (element.id == type_id::boolean && source->id != type_id::boolean) ||
      (array && connect.id == type_id::json)) {
    return connect;
  }
  source->array = array;
  return *source;
}

std::string debezium_source_type(const connect_field_schema& field) {
  std::string out(field.source_type);
  if (out.empty()) return out;
  std::string_view name = field.source_type;
  if (name.front() == '_') name.remove_prefix(1);
  if (any_of(name, {"NUMERIC", "DECIMAL"}) && in_range(field.source_length, 1, 1000)) {
    out += "(" + std::to_string(*field.source_length) + "," +
           std::to_string(field.source_scale.value_or(0)) + ")";
  } else if (any_of(name, {"VARCHAR", "BPCHAR", "CHAR", "BIT", "VARBIT", "BINARY", "VARBINARY"}) &&
             bounded(field.source_length)) {
    out += "(" + std::to_string(*field.source_length) + ")";
  } else if (any_of(name, {"TIME", "TIMETZ", "TIMESTAMP", "TIMESTAMPTZ", "DATETIME"}) &&
             in_range(field.source_scale, 0, 6)) {
    out += "(" + std::to_string(*field.source_scale) + ")";
  }
  return out;
}

}  // namespace sluice
