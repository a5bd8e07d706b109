#pragma once

#include <optional>
#include <string>

#include "core/catalog/table_router.h"

namespace sluice {

// What `sluice status` shows per table: the source timestamp of the newest change applied to
// it, and when a batch last wrote it.
struct table_progress {
  target_table table;
  std::optional<std::string> newest_source_ts;  // ISO 8601, UTC, µs; none: unknown
  std::string applied_at;                       // ISO 8601, UTC, µs
};

}  // namespace sluice
