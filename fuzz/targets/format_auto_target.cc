// Fuzz target body for `format: auto`: the format detector alone, then the auto decoder
// with every family available, over one fresh catalog per input.
#include <memory>

#include "fuzz/fuzz_invariants.h"
#include "fuzz/fuzz_message_list.h"
#include "fuzz/fuzz_targets.h"
#include "schemas/common/auto_decoder.h"
#include "schemas/common/format_detector.h"
#include "schemas/datastream/datastream_decoder.h"
#include "schemas/debezium/debezium_decoder.h"
#include "schemas/dsql/dsql_decoder.h"
#include "schemas/goldengate/goldengate_decoder.h"

namespace sluice::fuzz {

void fuzz_format_auto(std::string_view input) {
  decode_limits limits;
  limits.max_message_bytes = 3000;
  limits.max_depth = 12;
  limits.max_columns = 40;

  table_catalog catalog;
  decoder_factories factories;
  factories.datastream = [&] {
    return std::make_unique<datastream_decoder>(catalog, datastream_options{limits});
  };
  factories.goldengate = [&] {
    goldengate_options o;
    o.limits = limits;
    return std::make_unique<goldengate_decoder>(catalog, o);
  };
  factories.dsql = [&] { return std::make_unique<dsql_decoder>(catalog, dsql_options{limits}); };
  factories.debezium = [&] {
    debezium_options o;
    o.limits = limits;
    return std::make_unique<debezium_decoder>(catalog, o);
  };
  auto_decoder d(std::move(factories), limits);
  format_detector detector(limits.max_message_bytes);

  const std::vector<std::string_view> parts = split_messages(input);
  for (size_t i = 0; i < parts.size(); ++i) {
    result<detected_format> detected = detector.detect(parts[i]);
    require(detector.keys_seen().size() <= 32, "the detector kept more than 32 key names");

    raw_message msg;
    msg.topic = "fuzz";
    msg.offset = kafka_offset{static_cast<int64_t>(i)};
    msg.value = parts[i];
    decode_expectations expect;
    expect.decompressed_allowance = inflation_allowance(parts[i], limits.max_message_bytes);
    decode_and_check(d, catalog, msg, expect);
    if (detected.ok()) {
      require(d.last_format() == *detected, "auto_decoder and format_detector disagree");
    }
  }
}

}  // namespace sluice::fuzz
