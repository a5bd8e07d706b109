#include "connector/http/request_auth.h"

#include <doctest/doctest.h>

// The headers the HTTP server's access rules read; the server's own tests
// (http_server_test.cc) show the rules applied to whole requests.

using namespace sluice;

TEST_CASE("a Host header is loopback only for localhost, 127.x.y.z and ::1, any port") {
  CHECK(loopback_host(nullptr));  // no Host: not a browser
  for (const char* host :
       {"localhost", "LOCALHOST:8083", "127.0.0.1", "127.1.2.3:80", "[::1]", "[::1]:8083"}) {
    INFO(host);
    CHECK(loopback_host(host));
  }
  // A rebound DNS name, or one that merely starts like a loopback address, is not.
  for (const char* host : {"evil.example:8083", "127.0.0.1.evil.example", "127.0.0", "[::1]x",
                           "[::1", "localhost.evil.example", "0.0.0.0"}) {
    INFO(host);
    CHECK_FALSE(loopback_host(host));
  }
}

TEST_CASE("a secret is compared whole: a prefix, an extension or one changed byte is not it") {
  CHECK(same_secret("s3cret", "s3cret"));
  CHECK_FALSE(same_secret("s3cre", "s3cret"));
  CHECK_FALSE(same_secret("s3crett", "s3cret"));
  CHECK_FALSE(same_secret("s3creT", "s3cret"));
  CHECK_FALSE(same_secret("", "s3cret"));
  CHECK_FALSE(same_secret("x", ""));
}

TEST_CASE("Authorization headers: a bearer token, or the password of Basic credentials") {
  CHECK(bearer_token("Bearer abc") == std::optional<std::string_view>("abc"));
  CHECK(bearer_token("bEaReR   abc  ") == std::optional<std::string_view>("abc"));
  CHECK_FALSE(bearer_token("Basic abc").has_value());
  CHECK_FALSE(bearer_token(nullptr).has_value());
  // "connect:t0ken:with:colons": the password is everything after the first colon.
  CHECK(basic_password("Basic Y29ubmVjdDp0MGtlbjp3aXRoOmNvbG9ucw==") ==
        std::optional<std::string>("t0ken:with:colons"));
  CHECK(basic_password("basic dXNlcjo=") == std::optional<std::string>(""));  // "user:"
  CHECK_FALSE(basic_password("Basic dXNlcg==").has_value());                  // "user", no colon
  CHECK_FALSE(basic_password("Basic not*base64").has_value());
  CHECK_FALSE(basic_password("Bearer abc").has_value());
}
