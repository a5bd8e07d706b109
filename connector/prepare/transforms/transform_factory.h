#pragma once

#include <memory>
#include <string>

#include "connector/config/config.h"
#include "connector/config/transform_types.h"
#include "connector/prepare/transforms/change_transform.h"

namespace sluice {

// The change transform of transforms.<name> (any kind but RegexRouter, which the chain runs on
// topics). Throws std::invalid_argument for settings the loader would have refused.
std::unique_ptr<change_transform> make_change_transform(transform_kind kind,
                                                        const std::string& name,
                                                        const transform_config& t);

}  // namespace sluice
