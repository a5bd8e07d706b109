#include "schemas/avro/avro_block_stream.h"

namespace sluice {
namespace {

error bad(std::string message) {
  return make_error(error_code::invalid_avro, std::move(message));
}

void put_long(std::string& out, int64_t v) {
  uint64_t z = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  while (z >= 0x80) {
    out.push_back(static_cast<char>((z & 0x7f) | 0x80));
    z >>= 7;
  }
  out.push_back(static_cast<char>(z));
}

}  // namespace

bool avro_block_stream::read_exact(size_t n, std::string& into) {
  const size_t at = into.size();
  into.resize(at + n);
  _in->read(into.data() + at, static_cast<std::streamsize>(n));
  _read += static_cast<uint64_t>(_in->gcount());
  return static_cast<size_t>(_in->gcount()) == n;
}

bool avro_block_stream::read_long(int64_t& out, std::string* copy) {
  uint64_t v = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    const int c = _in->get();
    if (c == std::char_traits<char>::eof()) return false;
    ++_read;
    if (copy) copy->push_back(static_cast<char>(c));
    v |= static_cast<uint64_t>(c & 0x7f) << shift;
    if (!(c & 0x80)) {
      out = static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
      return true;
    }
  }
  return false;
}

std::optional<error> avro_block_stream::open(std::istream& in) {
  _in = &in;
  _header.clear();
  _first = 0;
  _count = 0;
  if (!read_exact(4, _header) || _header != std::string_view("Obj\x01", 4)) {
    return bad("not an Avro object container (no \"Obj\\x01\")");
  }
  for (;;) {  // the metadata map: copied as it is
    int64_t count = 0;
    if (!read_long(count, &_header)) return bad("header: metadata cut short");
    if (count == 0) break;
    if (count < 0) {
      int64_t ignored = 0;
      if (!read_long(ignored, &_header) || count == INT64_MIN) return bad("header: bad metadata");
      count = -count;
    }
    for (int64_t i = 0; i < 2 * count; ++i) {  // key, value
      int64_t n = 0;
      if (!read_long(n, &_header) || n < 0 || static_cast<uint64_t>(n) > _max ||
          _header.size() + static_cast<size_t>(n) > _max ||
          !read_exact(static_cast<size_t>(n), _header)) {
        return bad("header: metadata cut short or too large");
      }
    }
  }
  _sync.clear();
  if (!read_exact(16, _sync)) return bad("header: no sync marker");
  _header += _sync;
  return std::nullopt;
}

result<bool> avro_block_stream::next(std::string& out) {
  _first += _count;
  _count = 0;
  if (_in->peek() == std::char_traits<char>::eof()) return false;
  int64_t count = 0;
  int64_t size = 0;
  if (!read_long(count, nullptr) || !read_long(size, nullptr) || count < 0 || size < 0) {
    return bad("block after record " + std::to_string(_first) + ": cut short");
  }
  if (static_cast<uint64_t>(size) + _header.size() + 32 > _max) {
    return make_error(error_code::too_large, "block of " + std::to_string(size) +
                                                 " bytes exceeds " + std::to_string(_max));
  }
  out.assign(_header);
  put_long(out, count);
  put_long(out, size);
  if (!read_exact(static_cast<size_t>(size) + 16, out)) {
    return bad("block after record " + std::to_string(_first) + ": cut short");
  }
  if (out.compare(out.size() - 16, 16, _sync) != 0) {
    return bad("block after record " + std::to_string(_first) + ": wrong sync marker");
  }
  _count = static_cast<uint64_t>(count);
  return true;
}

}  // namespace sluice
