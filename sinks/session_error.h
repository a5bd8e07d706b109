#pragma once

#include <stdexcept>
#include <string>
#include <utility>

#include "sinks/target_error.h"

namespace sluice {

// A target session gave up: the server refused the login, or it stayed unreachable past the
// policy's outage_limit. what() says which, for a person (FAILED's reason).
class session_error : public std::runtime_error {
 public:
  session_error(target_error_class error, const std::string& what)
      : std::runtime_error(what), _error(std::move(error)) {}
  const target_error_class& error() const { return _error; }

 private:
  target_error_class _error;
};

}  // namespace sluice
