#include "fuzz/fuzz_invariants.h"

#include <doctest/doctest.h>

#include "fuzz/fuzz_message_list.h"
#include "fuzz/fuzz_targets.h"

namespace sluice::fuzz {
namespace {

// A decoder that does what a test tells it, to show the harness catches each broken promise.
class scripted_decoder final : public decoder {
 public:
  explicit scripted_decoder(table_catalog& catalog) : _catalog(catalog) {}

  std::optional<error> decode(const raw_message& msg, decode_output& out) override {
    ++calls;
    if (throws) throw std::runtime_error("bad input");
    change c;
    c.table = _catalog.intern(table_name{"db", "s", "t"});
    c.seq = csn_builder().add(int64_t{1}).build();
    c.source.origin.topic = std::string(msg.topic);
    c.source.origin.offset = msg.offset;
    c.source.origin.partition = msg.partition;
    if (keyless_on_keyed) c.table->key_columns = {"id"};
    if (learns_on_redelivery && calls == 2) {
      column_info late;
      late.name = "late";
      c.table->columns.push_back(late);
    }
    out.changes.push_back(std::move(c));
    if (fails_after_appending) return make_error(error_code::invalid_json, "late error");
    return std::nullopt;
  }

  int calls = 0;
  bool throws = false;
  bool fails_after_appending = false;
  bool keyless_on_keyed = false;
  bool learns_on_redelivery = false;

 private:
  table_catalog& _catalog;
};

raw_message any_message() {
  raw_message msg;
  msg.topic = "t";
  msg.value = "{}";
  return msg;
}

}  // namespace

TEST_CASE("the fuzz harness accepts a decoder that keeps its promises") {
  table_catalog catalog;
  scripted_decoder d(catalog);
  CHECK_NOTHROW(decode_and_check(d, catalog, any_message()));
  CHECK(d.calls == 2);  // decoded again as a redelivery
}

TEST_CASE("the fuzz harness reports a decoder that throws, appends with an error, or drifts") {
  table_catalog catalog;
  scripted_decoder throws(catalog);
  throws.throws = true;
  CHECK_THROWS_AS(decode_and_check(throws, catalog, any_message()), invariant_violation);

  scripted_decoder appends(catalog);
  appends.fails_after_appending = true;
  CHECK_THROWS_AS(decode_and_check(appends, catalog, any_message()), invariant_violation);

  scripted_decoder keyless(catalog);
  keyless.keyless_on_keyed = true;
  CHECK_THROWS_AS(decode_and_check(keyless, catalog, any_message()), invariant_violation);

  table_catalog other;
  scripted_decoder drifts(other);
  drifts.learns_on_redelivery = true;
  CHECK_THROWS_AS(decode_and_check(drifts, other, any_message()), invariant_violation);
}

TEST_CASE("a fuzz input splits into messages at lines holding only %%") {
  CHECK(split_messages("a") == std::vector<std::string_view>{"a"});
  CHECK(split_messages("a\n%%\nb\n%%\n") == std::vector<std::string_view>{"a", "b", ""});
  CHECK(split_messages("a%%b") == std::vector<std::string_view>{"a%%b"});
}

}  // namespace sluice::fuzz
