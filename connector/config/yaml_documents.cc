#include "connector/config/yaml_documents.h"

#include <sstream>

#include <yaml-cpp/eventhandler.h>

namespace sluice {
namespace {

// Records where each document starts; ignores everything inside it.
class document_starts final : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override { last = mark; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

  YAML::Mark last = YAML::Mark::null_mark();
};

}  // namespace

yaml_documents count_yaml_documents(const std::string& text) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  document_starts starts;
  yaml_documents out;
  YAML::Mark first = YAML::Mark::null_mark();
  while (out.count < 2 && parser.HandleNextDocument(starts)) {
    if (out.count == 0) {
      first = starts.last;
    } else if (starts.last.pos <= first.pos) {
      out.stalled = starts.last;
      return out;
    } else {
      out.second = starts.last;
    }
    ++out.count;
  }
  return out;
}

}  // namespace sluice
