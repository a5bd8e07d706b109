#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace sluice {

// Who asks the HTTP server: the headers its access rules read (SPEC §8; http_server.cc).

// Whether a request's Host header names a loopback endpoint: localhost, 127.x.y.z or ::1, any
// port, or no Host at all (not a browser). A browser led to 127.0.0.1 by a rebound DNS name
// sends that name: such a request is refused (DNS rebinding), since on loopback without a
// token the controls and /status answer anyone who reaches the port.
bool loopback_host(const char* header);

// Equal strings, in a time that does not depend on where they differ (a token guessed byte
// by byte learns nothing from the timing); only the length may show.
bool same_secret(std::string_view given, std::string_view secret);

// The token of an "Authorization: Bearer <token>" header (the scheme in any case), or
// nullopt.
std::optional<std::string_view> bearer_token(const char* header);

// The password of an "Authorization: Basic base64(user:password)" header (Kafka Connect's
// tools send the token so), or nullopt. Decoded here: one header, no library needed.
std::optional<std::string> basic_password(const char* header);

}  // namespace sluice
