#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "connector/source/source_message.h"
#include "schemas/common/kcat_line_reader.h"

namespace sluice {

// The source of `sluice replay`: files turned into the messages the prepare stage takes, as
// the Kafka consumer turns a topic into them. It reads; every rule about a message (what is
// a dead letter, timestamps, decoding) is the prepare stage's.
//
//   read_lines(path):  `kcat -C -J` lines ("-": stdin), one message per record line;
//                      blank lines skipped; a line that is not a record -> a message with
//                      `unreadable` set and the line's bytes as its value (no origin),
//                      named "line N" (N counts on across files)
//   read_avro(path):   a Datastream Avro object container, block by block, each block (the
//                      file's header + the block) one message of `topic` whose records
//                      take origin offsets numbered on across the replay's files; a file
//                      that cannot be cut into blocks -> an `unreadable` message naming the
//                      file, after the blocks before it
//
// Each message goes to `each`, which returns false to stop. Reading stops too when `stop`
// is set (a signal). Lifecycle: one per replay. Threading: one thread.
class file_source {
 public:
  using sink = std::function<bool(source_message&)>;
  enum class outcome { done, stopped, read_error };

  file_source(size_t max_block_bytes, const std::atomic<bool>& stop)
      : _max_block_bytes(max_block_bytes), _stop(stop) {}

  outcome read_lines(const std::string& path, const sink& each);
  outcome read_avro(const std::string& path, const std::string& topic, const sink& each);

  size_t lines() const { return _lines; }    // read, blank ones included
  uint64_t bytes() const { return _bytes; }  // read, newlines included

 private:
  size_t _max_block_bytes;
  const std::atomic<bool>& _stop;
  kcat_line_reader _reader;
  kcat_message _record;
  size_t _lines = 0;
  uint64_t _bytes = 0;
  uint64_t _avro_records = 0;  // records of the Avro files read before: offsets count on
};

}  // namespace sluice
