#pragma once

#include <compare>
#include <string>

#include "core/model/named_type.h"

namespace sluice {

// One partition of one topic: the unit of ownership, ordering and offsets.
struct topic_partition {
  std::string topic;
  partition_id partition{0};
  friend auto operator<=>(const topic_partition&, const topic_partition&) = default;
};

}  // namespace sluice
