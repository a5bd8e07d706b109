#pragma once

#include <string>
#include <vector>

#include "core/catalog/table_catalog.h"
#include "core/model/change.h"
#include "core/model/chunk_piece.h"
#include "core/model/csn.h"

namespace sluice {

// What a metadata record taught about a table's shape (GoldenGate OBJECT_METADATA, key
// discovery): persisted in sluice.catalog in the batch transaction, because after a restart
// the record that taught it lies behind the committed offsets (SPEC §3).
struct catalog_update {
  table_name table;
  std::vector<column_info> columns;
  std::vector<std::string> key_columns;
  std::string learned_from;  // e.g. "goldengate OBJECT_METADATA"
  csn seq;                   // orders updates of one table; empty when the source has none
  message_origin origin;
};

// A DDL statement the source reported (GoldenGate DDL records): recorded in
// sluice.ddl_history and counted; the shape change itself arrives as metadata or columns.
struct ddl_record {
  table_name table;
  std::string statement;
  csn seq;
  timestamp_ns source_ts{0};
  message_origin origin;
};

// Everything one message decodes into. A decoder appends to it, or returns an error and
// appends nothing.
struct decode_output {
  std::vector<change> changes;
  std::vector<catalog_update> catalog;
  std::vector<ddl_record> ddl;
  std::vector<chunk_piece> pieces;  // chunked records (DSQL): reassembled by the sink

  void clear() {
    changes.clear();
    catalog.clear();
    ddl.clear();
    pieces.clear();
  }
  bool empty() const { return changes.empty() && catalog.empty() && ddl.empty() && pieces.empty(); }
};

}  // namespace sluice
