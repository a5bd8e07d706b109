#pragma once

#include <string>

#include "connector/config/config.h"
#include "connector/prepare/transforms/change_transform.h"
#include "connector/prepare/transforms/column_rules.h"

namespace sluice {

// Kafka Connect's ReplaceField$Value: include/exclude (whitelist/blacklist) and renames of a
// change's columns (column_rules.h), the key's with them.
class replace_field final : public change_transform {
 public:
  // Throws std::invalid_argument for a rename that is not old:new.
  replace_field(const std::string& name, const transform_config& t);

  std::variant<outcome, std::string> apply(change& c, const record_context& r) override;
  const column_rules& rules() const { return _rules; }

 private:
  column_rules _rules;
};

}  // namespace sluice
