#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace sluice {

// The bytes of a committed Datastream Avro fixture (tests/fixtures/datastream_avro/, written by
// its generate.py with fastavro).
inline std::string avro_fixture(const std::string& name) {
  std::ifstream in(std::string(SLUICE_SOURCE_DIR) + "/tests/fixtures/datastream_avro/" + name,
                   std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace sluice
