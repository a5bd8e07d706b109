// Fuzz target body for the `kcat -J` line reader: every line of the input is read; a line
// that reads is written back as kcat would print it and must read back to the same message.
#include <string>

#include "core/model/json_text.h"
#include "fuzz/fuzz_invariants.h"
#include "fuzz/fuzz_targets.h"
#include "schemas/common/kcat_line_reader.h"

namespace sluice::fuzz {
namespace {

void append_optional(std::string& out, const std::optional<std::string>& s) {
  if (s) {
    append_json_string(out, *s);
  } else {
    out += "null";
  }
}

std::string kcat_line(const kcat_message& m) {
  std::string line = "{\"topic\":";
  append_json_string(line, m.topic);
  line += ",\"partition\":" + std::to_string(m.partition.value());
  line += ",\"offset\":" + std::to_string(m.offset.value());
  line += ",\"tstype\":\"create\",\"ts\":" + std::to_string(m.timestamp.value() / 1'000'000);
  line += ",\"broker\":1,\"headers\":[";
  for (size_t i = 0; i < m.headers.size(); ++i) {
    if (i > 0) line += ',';
    append_json_string(line, m.headers[i].first);
    line += ',';
    append_optional(line, m.headers[i].second);
  }
  line += "],\"key\":";
  append_optional(line, m.key);
  line += ",\"payload\":";
  append_optional(line, m.payload);
  line += '}';
  return line;
}

bool same(const kcat_message& a, const kcat_message& b) {
  return a.topic == b.topic && a.partition == b.partition && a.offset == b.offset &&
         a.timestamp == b.timestamp && a.key == b.key && a.payload == b.payload &&
         a.headers == b.headers;
}

}  // namespace

void fuzz_kcat_line(std::string_view input) {
  kcat_line_reader reader;
  kcat_message message;
  kcat_message again;
  while (!input.empty()) {
    const size_t eol = input.find('\n');
    const std::string_view line = input.substr(0, eol);
    input.remove_prefix(eol == std::string_view::npos ? input.size() : eol + 1);

    if (reader.read(line, message)) continue;
    require(message.partition.value() >= 0 && message.offset.value() >= 0,
            "a negative partition or offset was accepted");
    require(message.timestamp.value() % 1'000'000 == 0, "ts is not whole milliseconds");
    const raw_message view = message.view();
    require(view.topic == message.topic && view.value.has_value() == message.payload.has_value(),
            "view() differs from the message");

    const std::string written = kcat_line(message);
    const std::optional<error> err = reader.read(written, again);
    require(!err, "a message written back as kcat prints it does not read: " +
                      (err ? err->message : std::string()) + " in " + written);
    require(same(message, again), "a message written back reads differently: " + written);
  }
}

}  // namespace sluice::fuzz
