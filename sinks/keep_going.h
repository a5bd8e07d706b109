#pragma once

#include <functional>

namespace sluice {

// Asked by a sink role before every retry and while it waits out an outage: false abandons
// the call (its work was given up, or the connector stops). Empty: always go on.
using keep_going = std::function<bool()>;

}  // namespace sluice
