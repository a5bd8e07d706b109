#pragma once

#include <librdkafka/rdkafka.h>

#include "connector/source/source_message.h"
#include "core/model/topic_partition.h"

namespace sluice {

// A consumed librdkafka message as the prepare stage takes it (views valid while the
// message lives): topic, partition, offset, key, value, headers, and its timestamp with
// whose clock it is.
source_message to_source_message(const rd_kafka_message_t& m);
topic_partition partition_of(const rd_kafka_message_t& m);

}  // namespace sluice
