#include "connector/config/env_substitution.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>

using namespace sluice;

namespace {

env_lookup env_of(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    const auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

const env_lookup env = env_of({{"USER", "sluice"}, {"EMPTY", ""}, {"PW", "p${NOT_AGAIN}"}});

}  // namespace

TEST_CASE("a set variable is replaced, wherever it stands in the value") {
  const auto s = substitute_env("postgresql://${USER}@db/${USER}", env, false);
  CHECK(s.errors.empty());
  CHECK(s.text == "postgresql://sluice@db/sluice");
}

TEST_CASE("an unset variable is an error naming it") {
  const auto s = substitute_env("${MISSING}", env, false);
  REQUIRE(s.errors.size() == 1);
  CHECK(s.errors[0].find("environment variable MISSING is not set") != std::string::npos);
}

TEST_CASE("a set but empty variable is the empty string") {
  const auto s = substitute_env("a${EMPTY}b", env, false);
  CHECK(s.errors.empty());
  CHECK(s.text == "ab");
}

TEST_CASE("${X:-default} falls back when X is unset or empty") {
  CHECK(substitute_env("${MISSING:-dflt}", env, false).text == "dflt");
  CHECK(substitute_env("${EMPTY:-dflt}", env, false).text == "dflt");
  CHECK(substitute_env("${USER:-dflt}", env, false).text == "sluice");
  CHECK(substitute_env("${MISSING:-}", env, false).text == "");
  CHECK(substitute_env("${MISSING:-127.0.0.1:9092}", env, false).text == "127.0.0.1:9092");
}

TEST_CASE("substituted text is not scanned again") {
  CHECK(substitute_env("${PW}", env, false).text == "p${NOT_AGAIN}");
}

TEST_CASE("$${ is a literal ${ and a lone $ is kept") {
  CHECK(substitute_env("$${USER} costs $5", env, false).text == "${USER} costs $5");
}

TEST_CASE("malformed references are errors") {
  CHECK_FALSE(substitute_env("${USER", env, false).errors.empty());
  CHECK_FALSE(substitute_env("${}", env, false).errors.empty());
  CHECK_FALSE(substitute_env("${1X}", env, false).errors.empty());
  CHECK_FALSE(substitute_env("${A B}", env, false).errors.empty());
}

TEST_CASE("routing placeholders are reserved names, never read from the environment") {
  const auto table_env = env_of({{"table", "from-env"}, {"schema", "from-env"}});
  const auto kept = substitute_env("${schema}.${table}", table_env, true);
  CHECK(kept.errors.empty());
  CHECK(kept.text == "${schema}.${table}");
  const auto rejected = substitute_env("x_${topic}", table_env, false);
  REQUIRE(rejected.errors.size() == 1);
  CHECK(rejected.errors[0].find("routing placeholder") != std::string::npos);
  CHECK_FALSE(substitute_env("${table:-x}", table_env, true).errors.empty());
}

namespace {

// A file in a fresh temporary folder, removed with it.
class temp_file {
 public:
  explicit temp_file(const std::string& content) {
    char dir[] = "/tmp/sluice-secret-XXXXXX";
    REQUIRE(::mkdtemp(dir) != nullptr);
    _dir = dir;
    _path = _dir + "/secret";
    std::ofstream(_path, std::ios::binary) << content;
  }
  ~temp_file() {
    std::remove(_path.c_str());
    ::rmdir(_dir.c_str());
  }
  temp_file(const temp_file&) = delete;
  temp_file& operator=(const temp_file&) = delete;
  const std::string& path() const { return _path; }
  const std::string& dir() const { return _dir; }

 private:
  std::string _dir;
  std::string _path;
};

std::string file_ref(const temp_file& f) {
  return "${file:" + f.path() + "}";
}

}  // namespace

TEST_CASE("${file:/path} is replaced by the file's content, less one trailing newline") {
  const temp_file lf("s3cret\n");
  const temp_file crlf("s3cret\r\n");
  const temp_file bare("s3cret");
  const temp_file two("s3cret\n\n");
  const temp_file inner("line 1\nline 2\n");
  for (const temp_file* f : {&lf, &crlf, &bare}) {
    const auto s = substitute_env("postgresql://u:" + file_ref(*f) + "@db/x", env, false);
    CHECK(s.errors.empty());
    CHECK(s.text == "postgresql://u:s3cret@db/x");
  }
  CHECK(substitute_env(file_ref(two), env, false).text == "s3cret\n");  // exactly one
  CHECK(substitute_env(file_ref(inner), env, false).text == "line 1\nline 2");
}

TEST_CASE("what a ${file:} read is recorded as a secret, and not scanned again") {
  const temp_file f("p${USER}\n");
  const auto s = substitute_env("a" + file_ref(f) + "b${USER}", env, false);
  CHECK(s.errors.empty());
  CHECK(s.text == "ap${USER}bsluice");
  CHECK(s.from_files == std::vector<std::string>{"p${USER}"});
  CHECK(s.from_env == std::vector<std::string>{"sluice"});
}

TEST_CASE("an empty secret file gives the empty string") {
  const temp_file f("");
  const auto s = substitute_env(file_ref(f), env, false);
  CHECK(s.errors.empty());
  CHECK(s.text.empty());
}

TEST_CASE("a file that cannot be read is an error naming the reference and why, never content") {
  const auto missing = substitute_env("${file:/nonexistent/pg_password}", env, false);
  REQUIRE(missing.errors.size() == 1);
  CHECK(missing.errors[0] ==
        "cannot read \"${file:/nonexistent/pg_password}\": No such file or directory");

  const temp_file f("x");
  const auto folder = substitute_env("${file:" + f.dir() + "}", env, false);
  REQUIRE(folder.errors.size() == 1);
  CHECK(folder.errors[0].find("Is a directory") != std::string::npos);

  const temp_file big(std::string(max_secret_file_bytes + 1, 'k'));
  const auto large = substitute_env(file_ref(big), env, false);
  REQUIRE(large.errors.size() == 1);
  CHECK(large.errors[0].find("not a secret file") != std::string::npos);
  CHECK(large.errors[0].find("kkkk") == std::string::npos);
}

TEST_CASE("${file:} takes an absolute path") {
  for (const char* bad : {"${file:run/secrets/pw}", "${file:}", "${file: /x}"}) {
    const auto s = substitute_env(bad, env, false);
    REQUIRE_MESSAGE(s.errors.size() == 1, bad);
    CHECK(s.errors[0].find("needs an absolute path") != std::string::npos);
  }
}

TEST_CASE("a typo of a routing placeholder in a routing template is named as one") {
  for (const char* typo : {"${tabel}", "${Table}", "${topc}", "${shema}"}) {
    INFO(std::string(typo));
    const auto s = substitute_env(std::string("replica.") + typo, env, true);
    REQUIRE(s.errors.size() == 1);
    CHECK(s.errors[0].find("is not a routing placeholder") != std::string::npos);
    CHECK(s.errors[0].find("did you mean ${") != std::string::npos);
    CHECK(s.errors[0].find("is not set") == std::string::npos);
  }
  CHECK(substitute_env("${tabel}", env, true).errors[0].find("did you mean ${table}") !=
        std::string::npos);
  // Outside routing templates, and for names nothing like a placeholder, it is a variable.
  CHECK(substitute_env("${tabel}", env, false).errors[0].find("environment variable tabel") !=
        std::string::npos);
  CHECK(substitute_env("${MISSING}", env, true).errors[0].find("environment variable MISSING") !=
        std::string::npos);
}
