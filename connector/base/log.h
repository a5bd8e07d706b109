#pragma once

#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace sluice {

enum class log_severity { debug, info, warn, error };

// One line per event worth a human's attention (SPEC §6): never per message on a hot path.
// Text or JSON lines on stderr. Library folders never log; the connector does. Every line,
// librdkafka's included, is written with the configured secrets redacted (config::secrets).
class log {
 public:
  static void configure(log_severity min_level, bool json);
  // The values no line may show; each becomes ***. Replaces what an earlier call set.
  static void hide(std::vector<std::string> secrets);
  static void write(log_severity level, std::string_view component, std::string_view message);
  static bool enabled(log_severity level);
};

}  // namespace sluice

#define SLUICE_LOG(level, component, stream_expr)                                           \
  do {                                                                                      \
    if (::sluice::log::enabled(::sluice::log_severity::level)) {                            \
      std::ostringstream sluice_log_os_;                                                    \
      sluice_log_os_ << stream_expr;                                                        \
      ::sluice::log::write(::sluice::log_severity::level, component, sluice_log_os_.str()); \
    }                                                                                       \
  } while (0)
