// Fuzz target bodies for the four envelope decoders. Each input is a list of messages
// (fuzz_message_list.h) decoded in order by one decoder over one fresh catalog, so what an
// earlier message teaches (GoldenGate metadata, schema records) shapes the later ones.
#include <string>

#include "fuzz/fuzz_invariants.h"
#include "fuzz/fuzz_message_list.h"
#include "fuzz/fuzz_targets.h"
#include "schemas/datastream/datastream_decoder.h"
#include "schemas/debezium/debezium_decoder.h"
#include "schemas/dsql/dsql_decoder.h"
#include "schemas/goldengate/goldengate_decoder.h"

namespace sluice::fuzz {
namespace {

constexpr std::string_view topic = "fuzz";

raw_message message_at(size_t index, std::optional<std::string_view> key,
                       std::optional<std::string_view> value) {
  raw_message msg;
  msg.topic = topic;
  msg.partition = partition_id{static_cast<int32_t>(index % 3)};
  msg.offset = kafka_offset{static_cast<int64_t>(100 + index)};
  msg.timestamp = timestamp_ns{1'767'225'600'000'000'000 + static_cast<int64_t>(index)};
  msg.key = key;
  msg.value = value;
  return msg;
}

// Small limits, so that the fuzzer reaches the bounds with inputs of a few kilobytes.
decode_limits small_limits() {
  decode_limits limits;
  limits.max_message_bytes = 3000;
  limits.max_depth = 12;
  limits.max_columns = 40;
  return limits;
}

}  // namespace

void fuzz_datastream(std::string_view input) {
  table_catalog catalog;
  catalog.configure_key("shop.orders", {"id"});
  datastream_options options;
  options.limits = small_limits();
  options.source_timezone = "+02:00";
  datastream_decoder d(catalog, options);
  const std::vector<std::string_view> parts = split_messages(input);
  for (size_t i = 0; i < parts.size(); ++i) {
    decode_and_check(d, catalog, message_at(i, std::nullopt, parts[i]));
  }
}

void fuzz_goldengate(std::string_view input) {
  table_catalog catalog;
  catalog.configure_key("SALES.CONFIGURED", {"ID"});
  goldengate_options options;
  options.limits = small_limits();
  goldengate_decoder d(catalog, options);
  const std::vector<std::string_view> parts = split_messages(input);
  for (size_t i = 0; i < parts.size(); ++i) {
    decode_and_check(d, catalog, message_at(i, std::nullopt, parts[i]));
  }
}

// Parts alternate Kafka key and value: key0 %% value0 %% key1 %% value1 ... An empty part
// is a missing key (or a tombstone value); a lone part is a value without a key.
void fuzz_debezium(std::string_view input) {
  table_catalog catalog;
  catalog.configure_key("inventory.configured", {"b"});
  debezium_options options;
  options.limits = small_limits();
  debezium_decoder d(catalog, options);
  const std::vector<std::string_view> parts = split_messages(input);
  auto maybe = [](std::string_view s) {
    return s.empty() ? std::nullopt : std::optional<std::string_view>(s);
  };
  if (parts.size() == 1) {
    decode_and_check(d, catalog, message_at(0, std::nullopt, maybe(parts[0])));
    return;
  }
  for (size_t i = 0; i + 1 < parts.size(); i += 2) {
    decode_and_check(d, catalog, message_at(i / 2, maybe(parts[i]), maybe(parts[i + 1])));
  }
}

void fuzz_dsql(std::string_view input) {
  table_catalog catalog;
  catalog.configure_key("public.t", {"id"});
  catalog.configure_key("public.order_items", {"order_id", "item_id"});
  dsql_options options;
  options.limits = small_limits();
  dsql_decoder d(catalog, options);
  decode_expectations expect;
  expect.always_keyed = true;
  const std::vector<std::string_view> parts = split_messages(input);
  for (size_t i = 0; i < parts.size(); ++i) {
    decode_and_check(d, catalog, message_at(i, std::nullopt, parts[i]), expect);
  }
}

}  // namespace sluice::fuzz
