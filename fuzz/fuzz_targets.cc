#include "fuzz/fuzz_targets.h"

#include <array>

namespace sluice::fuzz {

std::span<const fuzz_target> all_fuzz_targets() {
  static constexpr std::array<fuzz_target, 10> targets{{
      {"datastream", fuzz_datastream},
      {"datastream_avro", fuzz_datastream_avro},
      {"confluent_avro", fuzz_confluent_avro},
      {"goldengate", fuzz_goldengate},
      {"debezium", fuzz_debezium},
      {"dsql", fuzz_dsql},
      {"format_auto", fuzz_format_auto},
      {"kcat_line", fuzz_kcat_line},
      {"chunk_assembly", fuzz_chunk_assembly},
      {"config", fuzz_config},
  }};
  return targets;
}

}  // namespace sluice::fuzz
