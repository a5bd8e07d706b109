#include "integration/support/offset_audit.h"

#include <chrono>

#include "integration/support/services.h"

namespace sluice::testing {
namespace {

std::string str(const std::optional<std::string>& v) {
  return v.value_or("<null>");
}

std::string literal(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

}  // namespace

offset_audit::offset_audit(std::string connector)
    : _connector(std::move(connector)), _trigger("audit_" + _connector) {
  execute(
      "CREATE TABLE IF NOT EXISTS public.sluice_offset_audit ("
      "  id bigserial PRIMARY KEY, connector text NOT NULL, topic text NOT NULL,"
      "  partition integer NOT NULL, old_next bigint, new_next bigint, epoch bigint NOT NULL,"
      "  at timestamptz NOT NULL DEFAULT clock_timestamp())");
  execute(
      "CREATE OR REPLACE FUNCTION public.sluice_offset_audit_row() RETURNS trigger "
      "LANGUAGE plpgsql AS $$ BEGIN "
      "INSERT INTO public.sluice_offset_audit (connector, topic, partition, old_next, new_next, "
      "epoch) VALUES (NEW.connector, NEW.topic, NEW.partition, OLD.next_offset, "
      "NEW.next_offset, NEW.owner_epoch); RETURN NULL; END $$");
  execute("DELETE FROM public.sluice_offset_audit WHERE connector = " + literal(_connector));
  // The row lock the UPDATE holds until COMMIT orders a partition's audit ids as its commits.
  execute("CREATE TRIGGER \"" + _trigger +
          "\" AFTER UPDATE ON sluice.offsets FOR EACH ROW WHEN (NEW.connector = " +
          literal(_connector) +
          " AND OLD.next_offset IS DISTINCT FROM NEW.next_offset) "
          "EXECUTE FUNCTION public.sluice_offset_audit_row()");
}

offset_audit::~offset_audit() {
  try {
    execute("DROP TRIGGER IF EXISTS \"" + _trigger + "\" ON sluice.offsets");
  } catch (...) {
  }
}

size_t offset_audit::commits() const {
  auto rows = query("SELECT count(*) FROM public.sluice_offset_audit WHERE connector = " +
                    literal(_connector));
  return std::stoull(str(rows.at(0).at(0)));
}

std::vector<std::string> offset_audit::violations(
    const std::string& topic, const std::map<int32_t, int64_t>& high_watermarks) const {
  std::vector<std::string> out;
  // Offsets as numbers, NULL (claimed, nothing committed yet) as -1.
  auto text = [](int64_t o) { return o < 0 ? std::string("NULL") : std::to_string(o); };
  std::map<int32_t, int64_t> last;  // partition → last new_next
  for (auto& r : query("SELECT partition, coalesce(old_next, -1), new_next, epoch FROM "
                       "public.sluice_offset_audit WHERE connector = " +
                       literal(_connector) + " AND topic = " + literal(topic) + " ORDER BY id")) {
    const int32_t p = std::stoi(str(r[0]));
    const int64_t old_next = std::stoll(str(r[1]));
    const int64_t new_next = std::stoll(str(r[2]));
    const std::string where = topic + "[" + std::to_string(p) + "] epoch " + str(r[3]) + ": " +
                              text(old_next) + " -> " + text(new_next);
    auto it = last.emplace(p, -1).first;
    if (old_next != it->second) {
      out.push_back(where + ": does not continue from " + text(it->second) +
                    (old_next < it->second ? " (applied twice)" : " (gap)"));
    }
    if (new_next <= old_next) out.push_back(where + ": moved backwards");
    it->second = new_next;
  }
  for (const auto& [p, hw] : high_watermarks) {
    auto it = last.find(p);
    const int64_t reached = it == last.end() ? 0 : it->second;
    if (reached != hw) {
      out.push_back(topic + "[" + std::to_string(p) + "]: commits end at " +
                    std::to_string(reached) + ", the high watermark is " + std::to_string(hw));
    }
  }
  return out;
}

offset_watch::offset_watch(std::string connector) : _connector(std::move(connector)) {
  _thread = std::thread([this] {
    while (!_stop) {
      try {
        for (auto& r : query("SELECT topic, partition, next_offset FROM sluice.offsets WHERE "
                             "connector = " +
                             literal(_connector) + " AND next_offset IS NOT NULL")) {
          const std::string key = str(r[0]) + "[" + str(r[1]) + "]";
          const int64_t offset = std::stoll(str(r[2]));
          std::lock_guard lock(_mutex);
          auto [it, fresh] = _max.emplace(key, offset);
          if (!fresh && offset < it->second) {
            _backwards.push_back(key + ": " + std::to_string(it->second) + " -> " +
                                 std::to_string(offset));
          }
          it->second = std::max(it->second, offset);
        }
        ++_polls;
      } catch (const std::exception&) {
        // the state schema may not exist yet
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  });
}

offset_watch::~offset_watch() {
  stop();
}

void offset_watch::stop() {
  _stop = true;
  if (_thread.joinable()) _thread.join();
}

std::vector<std::string> offset_watch::backwards() const {
  std::lock_guard lock(_mutex);
  return _backwards;
}

}  // namespace sluice::testing
