#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "core/model/column_type.h"
#include "schemas/goldengate/goldengate_names.h"

namespace sluice {

// The columns a table's JSON Schema record (draft 4, seed 003) declares, with their portable
// types (goldengate_types.h), in the schema's order. The columns are the `properties` of the
// record's after image (or before image) when the schema describes one (inline or as a
// "$ref" into `definitions`), else the schema's own `properties` less the record's fields
// (qual_table, op_type… as `names` calls them, and the structural members). A property's
// type is its `type` (the first that is not "null"), or that of the first `anyOf`/`oneOf`
// alternative that is not null, refined by `format`, `contentEncoding` and `maxLength`.
// Nothing for text that is not a JSON object; at most max_columns columns. Parses with its
// own DOM parser: schema records are rare (sent before the records that need them, and again
// when the source changes).
std::vector<column_types::column> json_schema_columns(std::string_view schema_text,
                                                      const goldengate_names& names,
                                                      size_t max_columns);

}  // namespace sluice
