#include "integration/connect/replica_diff.h"

#include <tuple>
#include <utility>

#include "integration/support/replica_checks.h"
#include "integration/support/services.h"

namespace sluice::testing {

std::vector<std::string> stream_columns(const std::string& table) {
  std::vector<std::string> out;
  for (const row& r : query("SELECT quote_ident(column_name) || CASE WHEN data_type IN "
                            "('json', 'xml') THEN '::text' ELSE '' END FROM "
                            "information_schema.columns "
                            "WHERE table_schema = 'public' AND table_name = '" +
                            table +
                            "' AND NOT starts_with(column_name, '_sluice') ORDER BY "
                            "ordinal_position"))
    out.push_back(str(r[0]));
  return out;
}

std::vector<std::string> difference(const std::vector<std::string>& columns, const std::string& a,
                                    const std::string& b) {
  std::string list;
  for (const std::string& c : columns)
    list += (list.empty() ? "" : ", ") + c;
  std::vector<std::string> out;
  for (const auto& [from, to] : {std::pair{a, b}, std::pair{b, a}}) {
    for (const row& r :
         query("SELECT '" + from + ": ' || t::text FROM (SELECT " + list + " FROM public." + from +
               " EXCEPT ALL SELECT " + list + " FROM public." + to + ") t"))
      out.push_back(str(r[0]));
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> stream_column_types(const std::string& table) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const row& r : query("SELECT quote_ident(attname), format_type(atttypid, atttypmod) FROM "
                            "pg_attribute WHERE attrelid = 'public." +
                            table +
                            "'::regclass AND attnum > 0 AND NOT attisdropped AND NOT "
                            "starts_with(attname, '_sluice') ORDER BY attnum"))
    out.emplace_back(str(r[0]), str(r[1]));
  return out;
}

std::vector<std::string> difference_in_types_of(const std::string& ours,
                                                const std::string& theirs) {
  std::string our_list, their_list;
  for (const auto& [name, type] : stream_column_types(theirs)) {
    std::string mine = name, their = name;
    if (type == "json" || type == "jsonb") {
      mine += "::jsonb";
      their += "::jsonb";
    } else if (type == "xml") {
      mine += "::text";
      their += "::text";
    } else if (type.starts_with("bit")) {
      mine += "::varbit";
      their += "::varbit";
    } else {
      mine += "::" + type;
    }
    our_list += (our_list.empty() ? "" : ", ") + mine;
    their_list += (their_list.empty() ? "" : ", ") + their;
  }
  std::vector<std::string> out;
  for (const auto& [from, to, from_list, to_list] :
       {std::tuple{ours, theirs, our_list, their_list},
        std::tuple{theirs, ours, their_list, our_list}}) {
    for (const row& r :
         query("SELECT '" + from + ": ' || t::text FROM (SELECT " + from_list + " FROM public." +
               from + " EXCEPT ALL SELECT " + to_list + " FROM public." + to + ") t"))
      out.push_back(str(r[0]));
  }
  return out;
}

std::vector<std::string> rows_of(const std::string& sql) {
  std::vector<std::string> out;
  for (const row& r : query(sql)) {
    std::string line;
    for (size_t i = 0; i < r.size(); ++i)
      line += (i ? "|" : "") + str(r[i]);
    out.push_back(line);
  }
  return out;
}

}  // namespace sluice::testing
