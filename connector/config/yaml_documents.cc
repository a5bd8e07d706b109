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
  // A third document is read when there is a second: a stall after a real first document
  // (",b" after "- a") shows as a second document, then a third at the same offset.
  YAML::Mark previous = YAML::Mark::null_mark();
  int seen = 0;
  while (seen < 3 && parser.HandleNextDocument(starts)) {
    if (seen > 0 && starts.last.pos <= previous.pos) {
      out.stalled = starts.last;
      return out;
    }
    if (seen == 1) out.second = starts.last;
    previous = starts.last;
    ++seen;
  }
  out.count = seen;
  return out;
}

}  // namespace sluice
