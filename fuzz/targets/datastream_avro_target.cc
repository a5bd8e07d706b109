// Fuzz target body for Datastream Avro: the whole input is one Kafka message, an Avro object
// container (the corpus holds fastavro-written fixtures, and containers of many blocks fed as
// one message, deflate and snappy among them; libFuzzer mutates their header, schema, block
// framing and records). The decoder must return changes or an error value, never crash, never
// allocate past its bound (schemas/avro/avro_allocator.h), never decode into more than the
// output bound allows (fuzz_invariants.h): the message limit is 128 KiB, so that inputs of
// 64 KiB and more (fuzz/scripts/run_bounded.sh) reach the bounds per message, and their
// blocks may inflate to 128 KiB in all.
#include "fuzz/fuzz_invariants.h"
#include "fuzz/fuzz_targets.h"
#include "schemas/datastream/datastream_decoder.h"

namespace sluice::fuzz {

void fuzz_datastream_avro(std::string_view input) {
  table_catalog catalog;
  catalog.configure_key("ORCL.HR.EMP", {"EMPNO"});
  datastream_options options;
  options.limits.max_message_bytes = 128 << 10;
  options.limits.max_depth = 12;
  options.limits.max_columns = 40;
  datastream_decoder d(catalog, options);
  raw_message msg;
  msg.topic = "fuzz";
  msg.offset = kafka_offset{100};
  msg.timestamp = timestamp_ns{1'767'225'600'000'000'000};
  msg.value = input;
  decode_expectations expect;
  expect.decompressed_allowance = inflation_allowance(input, options.limits.max_message_bytes);
  decode_and_check(d, catalog, msg, expect);
}

}  // namespace sluice::fuzz
