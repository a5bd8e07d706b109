#pragma once

#include <map>
#include <string>
#include <vector>

#include "schemas/common/decoder.h"

namespace sluice {

// How one topic's GoldenGate Data Streams records are read (SPEC §3). Filled from the topic's
// configuration by the connector (connector/prepare/stage_factory.cc).
struct goldengate_options {
  decode_limits limits;
  // The zone of op_ts values written without one (the topic's `source.timezone`): "UTC" or a
  // fixed offset "+HH:MM" / "-HH:MM".
  std::string source_timezone = "UTC";
  // Output field names as GoldenGate sends them, canonical -> as sent (topic.overrides.<topic>
  // .field.names). Canonical: qual_table op_type op_ts xid pos csn op_seq before after.
  // Unnamed fields keep their canonical name.
  std::map<std::string, std::string> field_names;
  // Op strings as GoldenGate sends them, canonical -> as sent (op.names). Canonical: INSERT
  // UPDATE DELETE UPSERT.
  std::map<std::string, std::string> op_names;
  // Key columns of tables on this topic whose key neither configuration (tables.<source>),
  // the record's primary_keys nor an OBJECT_METADATA record gives (topic.overrides.<topic>
  // .primary.key.fields).
  std::vector<std::string> default_key_columns;
};

}  // namespace sluice
