#include "schemas/avro/avro_container.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "schemas/avro/avro_binary_cursor.h"
#include "schemas/avro/avro_values.h"
#include "schemas/common/json_value_reader.h"

namespace sluice {
namespace {

constexpr std::string_view magic("Obj\x01", 4);

error bad(std::string message) {
  return make_error(error_code::invalid_avro, std::move(message));
}

// The header's and blocks' longs and byte strings, read with the records' own cursor; in
// moves past what was read.
bool read_long(std::string_view& in, int64_t& out) {
  avro_binary_cursor c(in);
  if (!c.read_long(out)) return false;
  in = c.rest();
  return true;
}

bool read_bytes(std::string_view& in, std::string_view& out) {
  avro_binary_cursor c(in);
  if (!c.read_bytes(out)) return false;
  in = c.rest();
  return true;
}

}  // namespace

bool is_avro_container(std::string_view bytes) {
  return bytes.starts_with(magic);
}

result<std::unique_ptr<avro_record_schema>> avro_record_schema::parse(std::string_view json) {
  std::unique_ptr<avro_record_schema> s(new avro_record_schema());
  if (avro_schema_from_json_length(json.data(), json.size(), &s->_schema)) {
    s->_schema = nullptr;
    return avro_failure("schema");
  }
  s->_iface = avro_generic_class_from_schema(s->_schema);
  if (!s->_iface) return avro_failure("schema");
  if (avro_generic_value_new(s->_iface, &s->_value)) {
    s->_value = {};
    return avro_failure("schema");
  }
  return s;
}

avro_record_schema::~avro_record_schema() {
  if (_value.iface) avro_value_decref(&_value);
  if (_iface) avro_value_iface_decref(_iface);
  if (_schema) avro_schema_decref(_schema);
}

avro_container_reader::avro_container_reader(size_t max_decompressed_bytes)
    : _max_decompressed(max_decompressed_bytes) {}

avro_container_reader::~avro_container_reader() = default;

std::optional<error> avro_container_reader::open(std::string_view bytes) {
  _schema_json = {};
  _codec = avro_codec::null;
  _data = {};
  _pos = 0;
  _left_in_block = 0;
  _block = 0;
  _index = 0;
  _decompressed = 0;
  if (!is_avro_container(bytes)) return bad("not an Avro object container (no \"Obj\\x01\")");
  std::string_view in = bytes.substr(magic.size());
  std::string_view codec = "null";
  bool has_schema = false;
  for (;;) {  // the metadata map, in blocks
    int64_t count = 0;
    if (!read_long(in, count)) return bad("header: metadata cut short");
    if (count == 0) break;
    if (count < 0) {  // a negative count is followed by the block's size in bytes
      int64_t ignored = 0;
      if (!read_long(in, ignored) || count == INT64_MIN) return bad("header: bad metadata block");
      count = -count;
    }
    if (static_cast<uint64_t>(count) > in.size()) return bad("header: metadata count too large");
    for (int64_t i = 0; i < count; ++i) {
      std::string_view key;
      std::string_view val;
      if (!read_bytes(in, key) || !read_bytes(in, val)) return bad("header: metadata cut short");
      if (key == "avro.schema") {
        _schema_json = val;
        has_schema = true;
      } else if (key == "avro.codec") {
        codec = val;
      }
    }
  }
  if (!has_schema) return bad("header: no avro.schema");
  auto parsed = parse_avro_codec(codec);
  if (!parsed) return parsed.err();
  _codec = *parsed;
  if (in.size() < _sync.size()) return bad("header: no sync marker");
  std::memcpy(_sync.data(), in.data(), _sync.size());
  _rest = in.substr(_sync.size());
  return std::nullopt;
}

std::optional<error> avro_container_reader::next_block() {
  const std::string where = "block " + std::to_string(_block);
  int64_t count = 0;
  int64_t size = 0;
  if (!read_long(_rest, count) || !read_long(_rest, size)) return bad(where + ": cut short");
  if (count < 0 || size < 0 || static_cast<uint64_t>(size) + _sync.size() > _rest.size()) {
    return bad(where + ": count or size does not fit the container");
  }
  std::string_view data = _rest.substr(0, static_cast<size_t>(size));
  if (std::memcmp(_rest.data() + size, _sync.data(), _sync.size()) != 0) {
    return bad(where + ": wrong sync marker");
  }
  _rest.remove_prefix(static_cast<size_t>(size) + _sync.size());
  if (_codec != avro_codec::null) {
    // The bound is the message's, not the block's: what is left of it after the blocks before
    // (each block may inflate ~1000x; a message of many blocks must not multiply that). An
    // empty block must inflate to nothing.
    const size_t room = count == 0 ? 0 : _max_decompressed - _decompressed;
    if (auto err = _decompressor.decompress(_codec, data, room, _buffer)) {
      if (err->code != error_code::too_large) return in_context(where, std::move(*err));
      if (count == 0) return bad(where + ": a block of no records holds bytes");
      return make_error(error_code::too_large,
                        where + ": the container's blocks decompress to more than " +
                            std::to_string(_max_decompressed) +
                            " bytes in all (the message size bound, limits.max.message.bytes)");
    }
    _decompressed += _buffer.size();
    data = _buffer;
  }
  // More records than bytes is refused: an event takes dozens of bytes, and a record of a
  // schema that encodes to none would still cost a change each (the budget counts them too).
  if (static_cast<uint64_t>(count) > data.size()) return bad(where + ": more records than bytes");
  _data = data;
  _pos = 0;
  _left_in_block = count;
  ++_block;
  return std::nullopt;
}

result<bool> avro_container_reader::next(std::string_view& rest) {
  while (_left_in_block == 0) {
    if (_block > 0 && _pos != _data.size()) {  // the block's records must use all its bytes
      return bad("block " + std::to_string(_block - 1) + ": bytes left after its records");
    }
    if (_rest.empty()) return false;
    if (auto err = next_block()) return std::move(*err);
  }
  rest = _data.substr(_pos);
  --_left_in_block;
  ++_index;
  return true;
}

void avro_container_reader::consumed(size_t bytes) {
  _pos = std::min(_pos + bytes, _data.size());
}

}  // namespace sluice
