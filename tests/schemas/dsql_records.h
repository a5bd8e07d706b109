#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/model/crc32c.h"
#include "core/model/json_text.h"

namespace sluice::testing {

// Aurora DSQL CDC records as DSQL sends them (seed 004), for the decoder, sink and end-to-end
// tests of chunked records.

// A `chunked` principal record of table public.<table> whose <image> ("after" for c/u,
// "before" for d) is the chunk chunk_id of total fragments, checked by crc.
inline std::string dsql_principal(std::string_view chunk_id, int total, uint32_t crc,
                                  std::string_view source_ts_ns, std::string_view op = "c",
                                  std::string_view table = "t") {
  const std::string image = op == "d" ? "before" : "after";
  std::string id;
  append_json_string(id, chunk_id);
  return R"({"type":"chunked","op":")" + std::string(op) +
         R"(","before":null,"after":null,"source":{"version":"1.0","ts_ms":1,"ts_ns":)" +
         std::string(source_ts_ns) + R"(,"txId":"tx-)" + std::string(source_ts_ns) +
         R"(","schema":"public","table":")" + std::string(table) +
         R"(","db":"postgres","cluster":"c1"},"chunked":{")" + image + R"(":{"chunk_id":)" + id +
         R"(,"total_fragments":)" + std::to_string(total) + R"(,"crc32c":")" + std::to_string(crc) +
         R"("}},"ts_ms":1,"ts_ns":1})";
}

inline std::string dsql_fragment(std::string_view chunk_id, int index, std::string_view data) {
  std::string out = R"({"type":"fragment","chunk_id":)";
  append_json_string(out, chunk_id);
  out += R"(,"index":)" + std::to_string(index) + R"(,"data":)";
  append_json_string(out, data);
  return out + "}";
}

// The image text cut into n pieces (the last takes the rest); DSQL cuts at UTF-8 character
// boundaries, and so does this for ASCII text.
inline std::vector<std::string> split_text(std::string_view text, size_t n) {
  std::vector<std::string> out;
  const size_t size = text.size() / n;
  for (size_t i = 0; i < n; ++i) {
    out.emplace_back(text.substr(i * size, i + 1 == n ? std::string_view::npos : size));
  }
  return out;
}

// A chunked record: the principal, then its fragments in index order.
struct dsql_chunked {
  std::string principal;
  std::vector<std::string> fragments;
};

inline dsql_chunked dsql_chunk(std::string_view chunk_id, std::string_view image, size_t n,
                               std::string_view source_ts_ns, std::string_view op = "c",
                               std::string_view table = "t") {
  dsql_chunked out;
  const auto parts = split_text(image, n);
  out.principal =
      dsql_principal(chunk_id, static_cast<int>(n), crc32c(image), source_ts_ns, op, table);
  for (size_t i = 0; i < parts.size(); ++i)
    out.fragments.push_back(dsql_fragment(chunk_id, static_cast<int>(i), parts[i]));
  return out;
}

}  // namespace sluice::testing
