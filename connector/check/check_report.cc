#include "connector/check/check_report.h"

#include <algorithm>

namespace sluice {

const char* to_string(check_report::status s) {
  switch (s) {
    case check_report::status::ok:
      return "ok";
    case check_report::status::warn:
      return "WARN";
    case check_report::status::fail:
      return "FAIL";
    case check_report::status::config_error:
      return "CONFIG";
    case check_report::status::unreachable:
      return "UNREACHABLE";
  }
  return "?";
}

void check_report::add(std::string area, std::string subject, status result, std::string detail) {
  _findings.push_back({std::move(area), std::move(subject), result, std::move(detail)});
}

bool check_report::has(status s) const {
  return std::any_of(_findings.begin(), _findings.end(),
                     [s](const finding& f) { return f.result == s; });
}

int check_report::exit_code() const {
  if (has(status::config_error)) return 2;
  if (has(status::unreachable)) return 3;
  if (has(status::fail)) return 1;
  return 0;
}

void check_report::print(std::ostream& out) const {
  size_t area = 4, subject = 5, result = 6;
  for (const finding& f : _findings) {
    area = std::max(area, f.area.size());
    subject = std::max(subject, f.subject.size());
    result = std::max(result, std::string(to_string(f.result)).size());
  }
  const auto line = [&](const std::string& a, const std::string& s, const std::string& r,
                        const std::string& d) {
    std::string text = a + std::string(area - a.size() + 2, ' ') + s +
                       std::string(subject - s.size() + 2, ' ') + r +
                       std::string(result - r.size() + 2, ' ') + d;
    while (!text.empty() && text.back() == ' ')
      text.pop_back();
    out << text << "\n";
  };
  line("AREA", "CHECK", "RESULT", "DETAIL");
  for (const finding& f : _findings)
    line(f.area, f.subject, to_string(f.result), f.detail);
}

}  // namespace sluice
