#pragma once

#include <optional>
#include <string>
#include <vector>

#include "connector/config/config.h"
#include "connector/prepare/transforms/change_transform.h"

namespace sluice {

// Kafka Connect's ValueToKey: the change's key becomes the named columns of its row, in the
// order given. The merge partitions and collapses on that key, and a table sluice creates takes
// it as its primary key.
//
// An upsert takes the key's values from its image. A delete carries the row it removes when
// the source sent one (Debezium's `before`); else the columns must be among the key it came
// with. A key change (old_key) keeps the row it leaves only where the fields are among its old
// key's columns; else it is an upsert under the new key, as Connect's sinks see it. A key value
// missing or null is an error, as in Connect: the message is a dead letter.
class value_to_key final : public change_transform {
 public:
  // Throws std::invalid_argument without fields, or with one named twice.
  value_to_key(const std::string& name, const transform_config& t);

  std::variant<outcome, std::string> apply(change& c, const record_context& r) override;

 private:
  std::string _who;
  std::vector<std::string> _fields;
};

// The key of `c` rebuilt from `fields` as ValueToKey does (above); `who` begins the errors
// ("transforms.bymail", "primary.key.mode record_value"). Why not, when it cannot.
std::optional<std::string> rekey_from_value(change& c, const std::vector<std::string>& fields,
                                            const std::string& who);

}  // namespace sluice
