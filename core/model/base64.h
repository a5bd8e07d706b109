#pragma once

#include <string>
#include <string_view>

namespace sluice {

// Standard base64 (RFC 4648, with or without padding). False when text is not base64.
bool decode_base64(std::string_view text, std::string& out);
// Standard base64 with padding.
std::string encode_base64(std::string_view bytes);
// The same, appended to out.
void append_base64(std::string& out, std::string_view bytes);

}  // namespace sluice
