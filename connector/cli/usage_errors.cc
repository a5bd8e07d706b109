#include "connector/cli/usage_errors.h"

#include <optional>
#include <utility>

namespace sluice {
namespace {

constexpr const char* commands =
    "run, check, decode, replay, status, offsets, dead-letters, "
    "config-reference";

// "a,b,c" as "a, b, c".
std::string listed(std::string_view items) {
  std::string out;
  for (char c : items) {
    if (c == ',') {
      out += ", ";
    } else {
      out += c;
    }
  }
  return out;
}

// `said` cut at the first `middle`: what comes before and after it; nothing without one.
std::optional<std::pair<std::string, std::string>> split(std::string_view said,
                                                         std::string_view middle) {
  const size_t at = said.find(middle);
  if (at == std::string_view::npos) return std::nullopt;
  return std::pair{std::string(said.substr(0, at)), std::string(said.substr(at + middle.size()))};
}

// Plain string matching, no std::regex: the messages quote the user's words, which may be long.
std::string reworded(std::string_view command, std::string_view said,
                     const std::vector<std::string>& left) {
  if (auto p = split(said, ": At Most 1 required but received ")) {
    return p->first + " is given " + p->second + " times; give it once";
  }
  if (said.starts_with("Could not convert: ")) {
    if (auto p = split(said.substr(19), " = ")) {
      const std::string name = p->first == "id" ? "ID" : p->first;
      return name + " takes a whole number, not \"" + p->second + "\"";
    }
  }
  if (said.ends_with("}")) {
    if (auto p = split(said, ": "); p && p->second.find(" not in {") != std::string::npos) {
      const auto q = split(p->second, " not in {");
      return p->first + ": \"" + q->first + "\" is not one of " +
             listed(q->second.substr(0, q->second.size() - 1));
    }
  }
  if (auto p = split(said, ": Value ");
      p && p->second.find(" not in range ") != std::string::npos) {
    return p->first + " takes a whole number of at least 1, not " +
           split(p->second, " not in range ")->first;
  }
  if (said.starts_with("Exactly 1 option from [")) {
    if (auto p = split(said.substr(23), "] is required and ")) {
      return "give exactly one of " + listed(p->first) + " (" +
             split(p->second, " ").value_or(std::pair{p->second, std::string()}).first + " given)";
    }
  }
  for (std::string_view lead : {"The following argument was not expected: ",
                                "The following arguments were not expected: "}) {
    if (!said.starts_with(lead)) continue;
    const std::string words(said.substr(lead.size()));
    if (command.empty()) return "\"" + words + "\" is not a command (" + commands + ")";
    return "unexpected " + words + " (not an option or argument of this command)";
  }
  if (said == "A subcommand is required") {
    if (!left.empty()) return "\"" + left.front() + "\" is not a command (" + commands + ")";
    if (command.empty()) return std::string("a command is needed: ") + commands;
    return "a command is needed after \"" + std::string(command) + "\"";
  }
  return std::string(said);
}

}  // namespace

std::string usage_error(std::string_view command, std::string_view said,
                        const std::vector<std::string>& left) {
  const std::string where = command.empty() ? "sluice" : "sluice " + std::string(command);
  return where + ": invalid command line: " + reworded(command, said, left) + "\n" + "(" + where +
         " --help lists what it takes)\n";
}

}  // namespace sluice
