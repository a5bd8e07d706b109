#include "schemas/goldengate/goldengate_metadata.h"

#include <array>
#include <memory>

#include "schemas/common/same_text.h"
#include "schemas/goldengate/goldengate_types.h"

namespace sluice {
namespace {

char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

template <size_t N>
bool is_one_of(std::string_view word, const std::array<std::string_view, N>& names) {
  for (std::string_view n : names) {
    if (equals_ignoring_case(word, n)) return true;
  }
  return false;
}

constexpr std::array<std::string_view, 20> numeric_types = {
    "number",        "integer", "int",        "smallint", "bigint",    "tinyint",    "mediumint",
    "decimal",       "dec",     "numeric",    "float",    "double",    "real",       "binary_float",
    "binary_double", "money",   "smallmoney", "serial",   "bigserial", "smallserial"};
constexpr std::array<std::string_view, 15> text_types = {
    "string", "varchar", "varchar2", "nvarchar", "nvarchar2", "char",   "nchar", "character",
    "clob",   "nclob",   "text",     "long",     "rowid",     "urowid", "ntext"};
constexpr std::array<std::string_view, 2> boolean_types = {"boolean", "bool"};

error bad_name(std::string_view text, std::string_view why) {
  return make_error(error_code::bad_identifier,
                    "qual_table \"" + std::string(text.substr(0, 128)) + "\" " + std::string(why));
}

}  // namespace

result<table_name> parse_qual_table(std::string_view text) {
  std::vector<std::string> parts(1);
  bool quoted = false;       // inside "..."
  bool part_quoted = false;  // the current part was quoted
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c != '"') {
        parts.back().push_back(c);
      } else if (i + 1 < text.size() && text[i + 1] == '"') {
        parts.back().push_back('"');
        ++i;
      } else {
        quoted = false;
      }
    } else if (c == '"' && parts.back().empty() && !part_quoted) {
      quoted = part_quoted = true;
    } else if (c == '.') {
      if (parts.back().empty()) return bad_name(text, "has an empty part");
      if (parts.size() == 3) return bad_name(text, "has more than three parts");
      parts.emplace_back();
      part_quoted = false;
    } else if (part_quoted) {
      return bad_name(text, "has text after a closing quote");
    } else {
      parts.back().push_back(c);
    }
  }
  if (quoted) return bad_name(text, "has an unclosed quote");
  if (parts.back().empty()) return bad_name(text, "has an empty part");
  table_name name;
  name.table = std::move(parts.back());
  if (parts.size() >= 2) name.schema = std::move(parts[parts.size() - 2]);
  if (parts.size() == 3) name.database = std::move(parts[0]);
  return name;
}

column_class classify_column_type(std::string_view type) {
  // The type's first word: "NUMBER(10,2)" -> NUMBER, "double precision" -> double,
  // "timestamp(6) with time zone" -> timestamp.
  size_t end = 0;
  while (end < type.size() && type[end] != '(' && type[end] != ' ')
    ++end;
  const std::string_view word = type.substr(0, end);
  if (word.empty()) return column_class::unknown;
  if (is_one_of(word, numeric_types)) return column_class::numeric;
  if (is_one_of(word, text_types)) return column_class::text;
  if (is_one_of(word, boolean_types)) return column_class::boolean;
  if (equals_ignoring_case(word, "null")) return column_class::unknown;
  return column_class::other;
}

learned_shape shape_of(const std::vector<goldengate_column_meta>& columns,
                       const std::vector<column_types::column>* schema) {
  learned_shape out;
  out.columns.reserve(columns.size());
  for (const goldengate_column_meta& c : columns) {
    column_info info;
    info.name = std::string(c.name);
    info.source_type = std::string(c.type);
    info.cls = classify_column_type(c.type);
    info.type = goldengate_column_type(c.type);
    info.nullable = c.nullable.value_or(true);
    info.key = c.key.value_or(false);
    if (info.key) out.key_columns.push_back(info.name);
    out.columns.push_back(std::move(info));
  }
  if (schema) refine_types(out.columns, *schema);
  return out;
}

bool refine_types(std::vector<column_info>& columns,
                  const std::vector<column_types::column>& schema) {
  bool changed = false;
  for (column_info& c : columns) {
    if (!is_json_primitive(c.source_type)) continue;
    for (const column_types::column& s : schema) {
      if (!same_text(s.name, c.name) || !s.type.known()) continue;
      changed = changed || c.type != s.type;
      c.type = s.type;
      break;
    }
  }
  return changed;
}

shared_column_types snapshot_of(const std::vector<column_info>& columns) {
  auto types = std::make_shared<column_types>();
  types->columns.reserve(columns.size());
  for (const column_info& c : columns) {
    types->columns.push_back(column_types::column{c.name, c.type, c.source_type});
  }
  return types;
}

void learn_shape(table_entry& entry, std::vector<column_info> columns,
                 std::vector<std::string> key_columns) {
  for (column_info& c : columns) {
    if (!c.type.known() && !c.source_type.empty()) c.type = goldengate_column_type(c.source_type);
  }
  entry.columns = std::move(columns);
  if (!entry.key_configured) entry.key_columns = std::move(key_columns);
  const auto same = [&] {
    if (!entry.types || entry.types->columns.size() != entry.columns.size()) return false;
    for (size_t i = 0; i < entry.columns.size(); ++i) {
      const column_types::column& t = entry.types->columns[i];
      const column_info& c = entry.columns[i];
      if (t.name != c.name || t.type != c.type || t.source_type != c.source_type) return false;
    }
    return true;
  };
  if (!same()) entry.types = entry.columns.empty() ? nullptr : snapshot_of(entry.columns);
}

}  // namespace sluice
