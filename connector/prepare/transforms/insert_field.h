#pragma once

#include <optional>
#include <string>
#include <vector>

#include "connector/config/config.h"
#include "connector/prepare/transforms/change_transform.h"
#include "connector/prepare/transforms/derived_types.h"

namespace sluice {

// Kafka Connect's InsertField$Value: adds to each row image the columns named by topic.field
// (the topic as the routers listed before it left it), partition.field, offset.field,
// timestamp.field (the Kafka timestamp, a timestamp in UTC) and static.field (static.value),
// typed as Connect types them (string, int32, int64, Timestamp, string). A name may end with
// Connect's `!` (required: a message without a Kafka timestamp is then a dead letter) or `?`
// (optional, the default).
//
// Only upserts carry a row: deletes and truncates pass as they are. A column of the image with
// an inserted name takes the inserted value (Connect's schemaless put); a key column cannot,
// since the key says which row the change is.
class insert_field final : public change_transform {
 public:
  insert_field(const std::string& name, const transform_config& t);

  std::variant<outcome, std::string> apply(change& c, const record_context& r) override;

 private:
  enum class source : uint8_t { topic, partition, offset, timestamp, constant };
  struct column {
    std::string name;
    source from;
    bool required = false;
  };
  static column_type type_of(source from);
  shared_column_types types_of(const shared_column_types& from) const;

  std::string _who;
  std::vector<column> _columns;
  std::string _static_value;
  derived_types _types;
};

}  // namespace sluice
