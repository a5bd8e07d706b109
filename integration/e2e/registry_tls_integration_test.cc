// The Schema Registry client over TLS: an HTTPS endpoint with a certificate from the run's
// throwaway CA (services/tls.sh) serving a registry answer (openssl s_server -WWW: files as
// paths). Verified against the configured CA it answers; against another CA, or the system's,
// the connector must fail with the reason (FAILED), not wait for a registry that is there.
#include <doctest/doctest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "connector/registry/schema_registry_client.h"
#include "integration/support/services.h"

using namespace sluice;
using namespace sluice::testing;
using namespace std::chrono_literals;

namespace {

// run_shell's output without its trailing newline.
std::string shell(const std::string& command) {
  std::string out = run_shell(command);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' '))
    out.pop_back();
  return out;
}

// An HTTPS "registry" that knows schema id 1, for the life of the object; with
// `client_certificates`, it demands a client certificate from the run's CA (mutual TLS).
class https_stub {
 public:
  explicit https_stub(bool client_certificates = false) {
    const std::string tls =
        shell("\"$SLUICE_SERVICES_DIR/tls.sh\" server registry-stub 2>/dev/null");
    _ca = tls + "/ca.crt";
    _www = run_dir() + "/registry-stub-www";
    std::filesystem::create_directories(_www + "/schemas/ids");
    std::ofstream(_www + "/schemas/ids/1") << R"({"schema":"\"long\""})";
    // free_port cannot reserve the port: another test may bind it first, and s_server then
    // exits. Start again on another port when the server is gone before it listens.
    bool listening = false;
    for (int attempt = 0; attempt < 5 && !listening; ++attempt) {
      _port = shell("bash -c 'source \"$SLUICE_SERVICES_DIR/common.sh\"; free_port'");
      _pid = shell("cd '" + _www + "' && { setsid openssl s_server -accept 127.0.0.1:" + _port +
                   " -cert '" + tls + "/registry-stub.crt' -key '" + tls + "/registry-stub.key' " +
                   (client_certificates ? "-Verify 1 -CAfile '" + _ca + "' " : std::string()) +
                   "-WWW -quiet </dev/null >/dev/null 2>&1 & echo $!; }");
      bool gone = false;
      listening = wait_until(
          [&] {
            if (std::system(("kill -0 " + _pid + " 2>/dev/null").c_str()) != 0) {
              gone = true;
              return true;
            }
            return std::system(("bash -c 'exec 3<>/dev/tcp/127.0.0.1/" + _port + "' 2>/dev/null")
                                   .c_str()) == 0;
          },
          20s);
      listening = listening && !gone;
      if (!listening) shell("kill " + _pid + " 2>/dev/null || true");
    }
    REQUIRE(listening);
  }
  ~https_stub() {
    shell("kill " + _pid + " 2>/dev/null || true");
    shell("\"$SLUICE_SERVICES_DIR/tls.sh\" release registry-stub 2>/dev/null || true");
  }
  std::string url() const { return "https://127.0.0.1:" + _port; }
  const std::string& ca() const { return _ca; }
  // A certificate and key from the run's CA, fit to present as a client.
  std::string certificate() const {
    return std::filesystem::path(_ca).parent_path() / "registry-stub.crt";
  }
  std::string key() const { return std::filesystem::path(_ca).parent_path() / "registry-stub.key"; }

 private:
  std::string _ca, _www, _port, _pid;
};

schema_registry_client_options options(const std::string& url, const std::string& ca) {
  schema_registry_client_options o;
  o.url = url;
  o.http.ca_file = ca;
  o.http.timeout = 3000ms;
  o.backoff_initial = 20ms;
  o.backoff_max = 100ms;
  return o;
}

// Hooks that end a wait for an unanswering registry after `limit` rather than never. Not a
// stop that is always requested: the client checks for a stop before each request, and then
// would make none.
schema_registry_hooks give_up_after(std::chrono::seconds limit) {
  schema_registry_hooks hooks;
  hooks.stop_requested = [deadline = std::chrono::steady_clock::now() + limit] {
    return std::chrono::steady_clock::now() > deadline;
  };
  return hooks;
}

}  // namespace

TEST_CASE(
    "a registry over TLS answers when its certificate verifies against the configured CA,"
    " and any other CA is a configuration error, not an outage") {
  https_stub stub;
  const schema_registry_hooks never_wait = give_up_after(20s);

  schema_registry_client trusted(options(stub.url(), stub.ca()), never_wait);
  auto found = trusted.schema(schema_id(1));
  REQUIRE_MESSAGE(found.ok(), found.err().message);
  CHECK((*found)->text == R"("long")");

  const std::string lone = run_dir() + "/registry-lone-ca.crt";
  shell("\"$SLUICE_SERVICES_DIR/tls.sh\" lone-ca '" + lone + "' 2>/dev/null");
  for (const std::string& ca : {lone, std::string()}) {  // another CA; the system's CAs
    CAPTURE(ca);
    schema_registry_client untrusted(options(stub.url(), ca), never_wait);
    try {
      (void)untrusted.schema(schema_id(1));
      FAIL("the certificate was accepted");
    } catch (const schema_source_refused& e) {
      CHECK(std::string(e.what()).find("cannot be used") != std::string::npos);
    }
  }
}

TEST_CASE(
    "a registry that demands a client certificate answers with one, and without one it is"
    " a configuration error, not an outage") {
  https_stub stub(/*client_certificates=*/true);
  const schema_registry_hooks never_wait = give_up_after(20s);

  auto with = options(stub.url(), stub.ca());
  with.http.certificate_file = stub.certificate();
  with.http.key_file = stub.key();
  schema_registry_client mutual(with, never_wait);
  auto found = mutual.schema(schema_id(1));
  REQUIRE_MESSAGE(found.ok(), found.err().message);
  CHECK((*found)->text == R"("long")");

  schema_registry_client without(options(stub.url(), stub.ca()), never_wait);
  try {
    (void)without.schema(schema_id(1));
    FAIL("answered without a client certificate");
  } catch (const schema_source_refused& e) {
    CHECK(std::string(e.what()).find("alert") != std::string::npos);
  }
}
