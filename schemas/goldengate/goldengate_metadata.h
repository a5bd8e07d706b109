#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/catalog/table_catalog.h"
#include "core/model/result.h"
#include "core/model/row_key.h"
#include "schemas/goldengate/goldengate_record.h"

namespace sluice {

// What GoldenGate's table names and OBJECT_METADATA records mean (SPEC §3). Pure functions.

// A qual_table: "SCHEMA.TABLE" -> {"", SCHEMA, TABLE}, "CATALOG.SCHEMA.TABLE" -> {CATALOG,
// SCHEMA, TABLE}, "TABLE" -> {"", "", TABLE}. A part may be double-quoted ("SALES"."MY.T",
// with "" for a quote inside it); quotes are removed. Empty parts, unbalanced quotes or more
// than three parts are bad_identifier errors.
result<table_name> parse_qual_table(std::string_view text);

// The class of a column type as OBJECT_METADATA gives it: a JSON primitive ("number",
// "integer", "string", "boolean") or a source type name ("NUMBER(10,2)", "VARCHAR2(20)",
// "CLOB", "double precision"…), case-insensitive. Numeric and character types decide how key
// values are canonicalized (row_key.h); anything else is `other`, nothing is `unknown`.
column_class classify_column_type(std::string_view type);

// A table's shape as an OBJECT_METADATA record's `columns` describe it: the columns in their
// order (nullable unless `null` is false) with their portable types (goldengate_types.h), and
// the key, the columns whose `key` is true. Where a column's type is only a JSON primitive
// ("number", "string"…), the table's JSON Schema record (`schema`, when there is one) says
// more and its type wins.
struct learned_shape {
  std::vector<column_info> columns;
  std::vector<std::string> key_columns;
};
learned_shape shape_of(const std::vector<goldengate_column_meta>& columns,
                       const std::vector<column_types::column>* schema = nullptr);

// Refines the columns whose source type is only a JSON primitive with the types a JSON Schema
// record gives them. True when a type changed.
bool refine_types(std::vector<column_info>& columns,
                  const std::vector<column_types::column>& schema);

// Teaches a catalog entry a shape: its columns, and its key unless configuration set the key
// (table_entry::key_configured); a column without a portable type (a catalog row stored
// before types were) gets the one its source type names. The entry's type snapshot
// (table_entry::types, attached to every change of the table) is rebuilt when the columns'
// names or types changed, and only then. Teaching the same shape twice changes nothing. The
// entry's learned fields belong to the decode stage: call this from it only.
void learn_shape(table_entry& entry, std::vector<column_info> columns,
                 std::vector<std::string> key_columns);

// The immutable type snapshot of a table's columns, for changes to share.
shared_column_types snapshot_of(const std::vector<column_info>& columns);

}  // namespace sluice
