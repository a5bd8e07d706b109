#pragma once

#include <optional>
#include <string>
#include <unordered_set>

#include "connector/config/config.h"
#include "connector/prepare/transforms/change_transform.h"

namespace sluice {

// Kafka Connect's MaskField$Value: the named columns keep their type and lose their value.
// Without `replacement`, each becomes its type's empty value, as Connect's: 0 for numbers,
// false, "" for text, the epoch for dates, times and timestamps, {} or [] for JSON. With it,
// numbers and text take the replacement (a number column only a number, an integer column only
// an integer); Connect refuses it for any other type, and so does sluice. Binary values cannot
// be masked, as in Connect. Null stays null; a column absent from a partial image stays absent.
//
// A key column cannot be masked: the key says which row the change is (every change would
// collapse onto one row). Such a change, or a replacement that does not fit, is unusable: its
// message becomes a dead letter with the reason.
class mask_field final : public change_transform {
 public:
  // Throws std::invalid_argument without fields.
  mask_field(const std::string& name, const transform_config& t);

  std::variant<outcome, std::string> apply(change& c, const record_context& r) override;

 private:
  std::optional<std::string> mask(const column_value& cv, const column_type* type,
                                  std::string& out) const;

  std::string _who;
  std::unordered_set<std::string> _fields;
  std::optional<std::string> _replacement;
};

}  // namespace sluice
