#pragma once

#include <unordered_map>
#include <utility>

#include "core/model/column_type.h"

namespace sluice {

// The column types a transform leaves a change with, derived from the types it came with once
// per schema, never per change: a schema repeats over every message of a table, and the merge
// and the sink see one shared object per schema (change::types). A change without types (an
// untyped format) is a schema of its own, `null`.
//
// Lifecycle: one per transform. Threading: one thread.
class derived_types {
 public:
  // The types derived from `from` by `build(from)` (from may be null; build returns the
  // derived types, null for none), built the first time this schema is seen.
  template <class Build>
  shared_column_types of(const shared_column_types& from, Build&& build) {
    auto [it, inserted] = _cache.try_emplace(from.get());
    if (!inserted) return it->second.second;
    // Schemas come and go: the cache is bounded, high enough that a transform shared by every
    // table of a large source (one entry per table and schema version) never thrashes.
    if (_cache.size() > 4096) {
      _cache.clear();
      it = _cache.try_emplace(from.get()).first;
    }
    // The source is kept alive with its derivation, so that its address is never reused for
    // another schema while cached.
    it->second = {from, build(from)};
    return it->second.second;
  }

 private:
  std::unordered_map<const column_types*, std::pair<shared_column_types, shared_column_types>>
      _cache;
};

}  // namespace sluice
