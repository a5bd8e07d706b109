#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/model/change.h"
#include "core/model/result.h"

namespace sluice {

// GoldenGate's JSON writes binary columns (RAW, BLOB) as base64 text: a column the change's
// types (its table's metadata) type as bytes gets its bytes, decoded once here, in the image
// and in the key and old key. Text that is not base64 is refused rather than stored as the
// characters it spells. A key's canonical form is that of its base64 text either way
// (core/model/row_key.cc), so it is left as it is.
//
// Stage: decode. Lifecycle: one per goldengate_decoder; its scratch is reused across
// messages, so a DML record allocates nothing here once the scratch has grown. Threading: its
// decoder's.
class goldengate_binary_values {
 public:
  // Nothing to do (and nothing done) for a change without types or without a bytes column.
  std::optional<error> decode(change& c);

 private:
  std::vector<value*> _values;             // scratch: the change's values…
  std::vector<const std::string*> _names;  // …and their columns' names
  std::string _bytes;                      // scratch: a decoded value
};

}  // namespace sluice
