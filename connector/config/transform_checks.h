#pragma once

#include <vector>

#include "connector/config/config.h"
#include "connector/config/config_error.h"
#include "connector/config/config_walker.h"

namespace sluice {

// The rules of transforms.* and fields.* that span keys (the loader's cross checks), each error
// at the line and column of the key it is about:
// - transforms: every name listed has its transforms.<name> entry and every entry is listed
//   (with no list, the entries' file order is the order: c.transforms is filled); each entry
//   has a type, only that type's settings, a RegexRouter its regex and a replacement whose $n
//   are groups of the regex, a ReplaceField include or whitelist (not both), exclude or
//   blacklist (not both);
// - a configured key column (tables.<source>.primary.key.fields, topic.overrides.<topic>.
//   primary.key.fields) that a ReplaceField or fields.* excludes, after the renames that run
//   before it, is an error at load rather than a dead letter per message.
void check_transforms(config& c, const walk_result& walk, std::vector<config_error>& errors);
void check_excluded_keys(const config& c, const walk_result& walk,
                         std::vector<config_error>& errors);

}  // namespace sluice
