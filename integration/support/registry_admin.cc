#include "integration/support/registry_admin.h"

#include <stdexcept>

#include "integration/support/kcat_lines.h"
#include "integration/support/services.h"
#include "integration/support/sluice_process.h"

namespace sluice::testing {

schema_id register_schema(const std::string& subject, const std::string& schema_text) {
  const std::string body =
      write_run_file(subject + ".json", "{\"schema\":" + json_string(schema_text) + "}");
  const std::string out = run_shell(
      "curl -sS -f -X POST -H 'Content-Type: application/vnd.schemaregistry.v1+json' "
      "--data-binary @'" +
      body + "' '" + registry_url() + "/subjects/" + subject + "/versions' 2>&1");
  const auto at = out.find("\"id\":");
  if (at == std::string::npos) throw std::runtime_error("register_schema: " + out);
  return schema_id{std::stoi(out.substr(at + 5))};
}

}  // namespace sluice::testing
