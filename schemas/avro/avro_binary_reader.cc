#include "schemas/avro/avro_binary_reader.h"

#include <string>

#include "schemas/avro/avro_record_check.h"
#include "schemas/avro/avro_values.h"

namespace sluice {

avro_binary_reader::avro_binary_reader() : _reader(avro_reader_memory("", 0)) {}

avro_binary_reader::~avro_binary_reader() {
  if (_reader) avro_reader_free(_reader);
}

std::optional<error> avro_binary_reader::read(std::string_view body, const avro_node& schema,
                                              size_t max_depth, avro_value_t& into) {
  auto size = check_avro_record(body, schema, max_depth);
  if (!size) return size.err();
  if (*size != body.size()) {
    return make_error(error_code::invalid_avro,
                      std::to_string(body.size() - *size) + " bytes after the record");
  }
  if (!_reader) return make_error(error_code::invalid_avro, "no Avro C memory reader");
  // Avro C reads only the bytes the check walked.
  avro_reader_memory_set_source(_reader, body.data(), static_cast<int64_t>(*size));
  if (avro_value_read(_reader, &into)) return avro_failure("record does not match its schema");
  return std::nullopt;
}

}  // namespace sluice
