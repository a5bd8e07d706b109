#include "connector/config/redact.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using sluice::is_sensitive_kafka_property;
using sluice::redact;

TEST_CASE("a URI's password is redacted and the rest of the DSN kept") {
  CHECK(redact("postgresql://sluice:s3cret@db:5432/replica") ==
        "postgresql://sluice:***@db:5432/replica");
  CHECK(redact("postgres://u:p@h1:5432,h2:5433/db?sslmode=require") ==
        "postgres://u:***@h1:5432,h2:5433/db?sslmode=require");
}

TEST_CASE("a URI without a password is left as it is") {
  CHECK(redact("postgresql://sluice@127.0.0.1:5432/replica") ==
        "postgresql://sluice@127.0.0.1:5432/replica");
  CHECK(redact("postgresql://127.0.0.1:5432/replica") == "postgresql://127.0.0.1:5432/replica");
  CHECK(redact("postgresql:///replica") == "postgresql:///replica");
}

TEST_CASE("a password holding '@' or '/' is redacted whole") {
  CHECK(redact("postgresql://u:p@ss@db/replica") == "postgresql://u:***@db/replica");
  CHECK(redact("postgresql://u:pa/ss@db/replica") == "postgresql://u:***@db/replica");
}

TEST_CASE("password parameters of a URI's query are redacted") {
  CHECK(redact("postgresql://u@db/replica?password=s3cret&sslmode=verify-full") ==
        "postgresql://u@db/replica?password=***&sslmode=verify-full");
  CHECK(redact("postgresql:///replica?host=/run/pg&sslpassword=k3y") ==
        "postgresql:///replica?host=/run/pg&sslpassword=***");
}

TEST_CASE("keyword-form passwords are redacted, quoted or not") {
  CHECK(redact("host=db user=sluice password=s3cret dbname=replica") ==
        "host=db user=sluice password=*** dbname=replica");
  CHECK(redact("host=db password = 's3 cr\\'et' dbname=replica") ==
        "host=db password = *** dbname=replica");
  CHECK(redact("password=s3cret") == "password=***");
  CHECK(redact("host=db sslpassword=k3y") == "host=db sslpassword=***");
}

TEST_CASE("words that only resemble the password keyword are left alone") {
  CHECK(redact("host=db user=password_admin") == "host=db user=password_admin");
  CHECK(redact("host=db passwordless=1") == "host=db passwordless=1");
  CHECK(redact("host=db password=") == "host=db password=");
}

TEST_CASE("librdkafka's sensitive properties are recognised") {
  CHECK(is_sensitive_kafka_property("sasl.password"));
  CHECK(is_sensitive_kafka_property("ssl.key.password"));
  CHECK(is_sensitive_kafka_property("ssl.key.pem"));
  CHECK(is_sensitive_kafka_property("sasl.oauthbearer.client.secret"));
  CHECK(is_sensitive_kafka_property("sasl.oauthbearer.config"));
  CHECK_FALSE(is_sensitive_kafka_property("sasl.username"));
  CHECK_FALSE(is_sensitive_kafka_property("bootstrap.servers"));
}

TEST_CASE("known secret values are redacted wherever they stand in a text") {
  using sluice::redact_secrets;
  const std::vector<std::string> secrets{"s3cret", "127.0.0.1:29092"};
  CHECK(redact_secrets("SASL authentication failed for s3cret at 127.0.0.1:29092: s3cret!",
                       secrets) == "SASL authentication failed for *** at ***: ***!");
  CHECK(redact_secrets("nothing to hide", secrets) == "nothing to hide");
  CHECK(redact_secrets("s3cre", secrets) == "s3cre");
  CHECK(redact_secrets("anything", {}) == "anything");
}

TEST_CASE("a secret holding another is redacted whole, and empty secrets are ignored") {
  using sluice::redact_secrets;
  const std::vector<std::string> secrets{"", "pw", "pw-longer"};
  CHECK(redact_secrets("x pw-longer y pw z", secrets) == "x *** y *** z");
}

TEST_CASE("a URL's user info is hidden up to the last '@', a password with '/' included") {
  using sluice::redact_url_user_info;
  CHECK(redact_url_user_info("https://svc:pa/ss@reg:8081/x") == "https://***@reg:8081/x");
  CHECK(redact_url_user_info("https://svc:pa?ss@reg:8081") == "https://***@reg:8081");
  CHECK(redact_url_user_info("http://reg:8081/apis") == "http://reg:8081/apis");
  CHECK(redact_url_user_info("reg@host") == "reg@host");
}

TEST_CASE("dsn_passwords finds what redact() hides, quoted values also without quotes") {
  using sluice::dsn_passwords;
  CHECK(dsn_passwords("postgresql://u:p@ss@db:5432/r?sslpassword=k3y&x=1") ==
        std::vector<std::string>{"p@ss", "k3y"});
  CHECK(dsn_passwords("host=db password='a b' user=u") == std::vector<std::string>{"'a b'", "a b"});
  CHECK(dsn_passwords("postgresql://u@db/r").empty());
  CHECK(dsn_passwords("host=db passwords=x").empty());
}
