#pragma once

#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace sluice::fuzz {

// A broken invariant: thrown by a target body, so that the libFuzzer entry point aborts
// (a crash, with the input saved) and the corpus replay test reports it as a failure.
class invariant_violation : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// One fuzz target: its name (the corpus folder fuzz/corpus/<name>, the dictionary
// fuzz/dict/<name>.dict, the executable fuzz_<name>) and its body, which decodes one input
// and throws invariant_violation when an invariant breaks. Bodies keep no state between
// inputs: each input is self-contained, so any finding reproduces from its file alone.
struct fuzz_target {
  std::string_view name;
  void (*run)(std::string_view input);
};

void fuzz_datastream(std::string_view input);
void fuzz_datastream_avro(std::string_view input);
void fuzz_confluent_avro(std::string_view input);
void fuzz_goldengate(std::string_view input);
void fuzz_debezium(std::string_view input);
void fuzz_dsql(std::string_view input);
void fuzz_format_auto(std::string_view input);
void fuzz_kcat_line(std::string_view input);
void fuzz_chunk_assembly(std::string_view input);
void fuzz_config(std::string_view input);

// Every target, for the corpus replay test.
std::span<const fuzz_target> all_fuzz_targets();

}  // namespace sluice::fuzz
