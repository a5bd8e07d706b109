#pragma once

#include <cstdint>
#include <vector>

#include "connector/source/kafka_handles.h"

namespace sluice {

// What the consumer thread hands to the prepare stage: the messages of one batch, tagged
// with the pipeline generation they were consumed in (work of an older generation is
// abandoned: see drive/pipeline.h).
struct raw_batch {
  uint64_t generation = 0;
  std::vector<kafka_message> messages;
};

}  // namespace sluice
