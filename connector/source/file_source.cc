#include "connector/source/file_source.h"

#include <fstream>
#include <iostream>
#include <memory>

#include "schemas/avro/avro_block_stream.h"

namespace sluice {

file_source::outcome file_source::read_lines(const std::string& path, const sink& each) {
  std::ifstream file;
  std::unique_ptr<char[]> file_buffer;
  std::istream* in = &std::cin;
  if (path != "-") {
    constexpr size_t buffer_size = 1 << 20;
    file_buffer = std::make_unique<char[]>(buffer_size);
    file.rdbuf()->pubsetbuf(file_buffer.get(), buffer_size);
    file.open(path, std::ios::binary);
    in = &file;
  }
  std::string line, where;
  while (!_stop.load() && std::getline(*in, line)) {
    ++_lines;
    _bytes += line.size() + 1;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    source_message m;
    if (auto err = _reader.read(line, _record)) {
      err->message =
          "not a kcat -J record: " + std::string(to_string(err->code)) + ": " + err->message;
      m.unreadable = std::move(err);
      m.raw.value = line;
      where = "line " + std::to_string(_lines);
      m.where = where;
    } else {
      m.raw = _record.view();
      m.timestamp_ms = _record.timestamp_ms;
      m.clock = _record.clock;
    }
    if (!each(m)) return outcome::stopped;
  }
  if (in->bad()) return outcome::read_error;
  return _stop.load() ? outcome::stopped : outcome::done;
}

file_source::outcome file_source::read_avro(const std::string& path, const std::string& topic,
                                            const sink& each) {
  std::ifstream in(path, std::ios::binary);
  avro_block_stream blocks(_max_block_bytes);
  std::string block, where;
  uint64_t counted = 0;
  uint64_t records = 0;  // of this file, added to _avro_records however it ends
  struct count_on_exit {
    uint64_t& total;
    const uint64_t& added;
    ~count_on_exit() { total += added; }
  } on_exit{_avro_records, records};
  // A file that cannot be cut into blocks: one message saying so, after the blocks before.
  auto unreadable = [&](error e) {
    e.message = std::string(to_string(e.code)) + ": " + e.message;
    source_message m;
    m.raw.topic = topic;
    m.raw.offset = kafka_offset{static_cast<int64_t>(_avro_records + blocks.first_record())};
    m.unreadable = e;
    m.where = path;
    return each(m) ? outcome::done : outcome::stopped;
  };
  if (auto err = blocks.open(in)) return unreadable(*err);
  while (!_stop.load()) {
    auto more = blocks.next(block);
    _bytes += blocks.bytes_read() - counted;
    counted = blocks.bytes_read();
    if (!more) return unreadable(more.err());
    if (!*more) break;
    source_message m;
    m.raw.topic = topic;
    m.raw.offset = kafka_offset{static_cast<int64_t>(_avro_records + blocks.first_record())};
    m.raw.value = block;
    m.offset_per_record = true;
    where = path + " record " + std::to_string(blocks.first_record());
    m.where = where;
    if (!each(m)) return outcome::stopped;
    records = blocks.first_record() + blocks.records();
  }
  if (in.bad()) return outcome::read_error;
  return _stop.load() ? outcome::stopped : outcome::done;
}

}  // namespace sluice
