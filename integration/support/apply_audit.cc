#include "integration/support/apply_audit.h"

#include "integration/support/services.h"

namespace sluice::testing {
namespace {

std::string str(const std::optional<std::string>& v) {
  return v.value_or("<null>");
}

}  // namespace

apply_audit::apply_audit(std::string name, std::vector<std::string> tables)
    : _name(std::move(name)), _tables(std::move(tables)) {
  execute(
      "CREATE TABLE IF NOT EXISTS public.sluice_apply_audit (audit text NOT NULL, "
      "tbl text NOT NULL, id bigint, version bigint, at timestamptz NOT NULL DEFAULT "
      "clock_timestamp())");
  execute(
      "CREATE OR REPLACE FUNCTION public.sluice_apply_audit_row() RETURNS trigger "
      "LANGUAGE plpgsql AS $$ BEGIN "
      "INSERT INTO public.sluice_apply_audit (audit, tbl, id, version) VALUES (TG_ARGV[0], "
      "TG_TABLE_NAME, (to_jsonb(NEW) ->> 'id')::bigint, (to_jsonb(NEW) ->> 'version')::bigint); "
      "RETURN NEW; END $$");
  execute("DELETE FROM public.sluice_apply_audit WHERE audit = '" + _name + "'");
  for (const std::string& t : _tables) {
    execute("CREATE TRIGGER sluice_apply_audit BEFORE INSERT ON public.\"" + t +
            "\" FOR EACH ROW EXECUTE FUNCTION public.sluice_apply_audit_row('" + _name + "')");
  }
}

apply_audit::~apply_audit() {
  for (const std::string& t : _tables) {
    try {
      execute("DROP TRIGGER IF EXISTS sluice_apply_audit ON public.\"" + t + "\"");
    } catch (...) {
    }
  }
}

std::vector<std::string> apply_audit::applied_twice() const {
  std::vector<std::string> out;
  for (auto& r : query("SELECT tbl, id, version, count(*) FROM public.sluice_apply_audit WHERE "
                       "audit = '" +
                       _name + "' GROUP BY 1, 2, 3 HAVING count(*) > 1 ORDER BY 1, 2, 3")) {
    out.push_back(str(r[0]) + " id " + str(r[1]) + " version " + str(r[2]) + " x" + str(r[3]));
  }
  return out;
}

size_t apply_audit::proposals() const {
  auto rows = query("SELECT count(*) FROM public.sluice_apply_audit WHERE audit = '" + _name + "'");
  return std::stoull(str(rows.at(0).at(0)));
}

}  // namespace sluice::testing
