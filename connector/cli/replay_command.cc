// sluice replay -c FILE --file F: applies the records `kcat -C -J` printed (a file, or stdin
// with `--file -`) through decode → merge → apply, without Kafka and without touching
// sluice.offsets (see cli/replayer.h for the loop).
//
//   check the arguments, load the configuration, open the input     (2 when any fails)
//   reach PostgreSQL and migrate the state schema                    (1 when it fails)
//   for each line: replayer.add_line(line); redraw the progress bar (stderr, terminals only)
//     stop early on errors.tolerance: none (the bad line), SIGINT/SIGTERM, a database error
//   flush the last batch; print the summary (stdout)
//
// Exit codes: 0 every line applied or dead-lettered; 1 stopped early (a bad line with
// errors.tolerance: none, a database failure, a signal); 2 usage or configuration error.

#include <signal.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "connector/cli/cli_options.h"
#include "connector/cli/commands.h"
#include "connector/cli/progress_bar.h"
#include "connector/cli/replayer.h"
#include "connector/config/redact.h"
#include "connector/runtime/stage_factory.h"
#include "sinks/postgres/batch_applier.h"

namespace sluice {
namespace {

std::atomic<bool> g_replay_stop{false};

extern "C" void on_replay_signal(int) {
  g_replay_stop.store(true);
}

// Without SA_RESTART: a read blocked on a pipe returns, so the replay stops promptly.
void install_replay_signal_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_replay_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
}

// The input's size when it is a regular file (the progress bar's 100%).
std::optional<uint64_t> size_of(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  return static_cast<uint64_t>(st.st_size);
}

std::optional<uint64_t> size_of(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  return static_cast<uint64_t>(st.st_size);
}

// Dead letters are shown on stderr up to this many; the rest only counted.
constexpr size_t shown_dead_letters = 20;

}  // namespace

int replay_command(const arguments& args) {
  if (auto bad = unknown_argument(args, {"-c", "--config", "--file"}, {"--no-progress"})) {
    std::cerr << "sluice replay: unknown argument " << *bad << " (see sluice --help)\n";
    return 2;
  }
  const auto path = flag_value(args, "--file", "--file");
  if (!path || path->empty()) {
    std::cerr << "sluice replay: missing --file F (a `kcat -C -J` output file, or - for stdin)\n";
    return 2;
  }
  auto c = load_command_config(args, "replay");
  if (!c) return 2;
  for (const std::string& topic : c->topics) {
    try {
      topic_decoders(*c).for_topic(topic);
    } catch (const std::exception& e) {
      std::cerr << "sluice replay: configuration: " << e.what() << "\n";
      return 2;
    }
  }

  std::ios::sync_with_stdio(false);
  std::ifstream file;
  std::unique_ptr<char[]> file_buffer;
  std::istream* in = &std::cin;
  std::optional<uint64_t> total;
  if (*path == "-") {
    total = size_of(0);
  } else {
    constexpr size_t buffer_size = 1 << 20;
    file_buffer = std::make_unique<char[]>(buffer_size);
    file.rdbuf()->pubsetbuf(file_buffer.get(), buffer_size);
    file.open(*path, std::ios::binary);
    if (!file) {
      std::cerr << "sluice replay: cannot open " << *path << ": " << std::strerror(errno) << "\n";
      return 2;
    }
    total = size_of(*path);
    in = &file;
  }

  // Completed chunked records are decoded by the applier.
  apply_options options = make_applier_options(*c);
  options.chunk_decoders = chunk_decoder_factory(*c);
  // A person waits for a replay: a short, bounded retry policy, never a hang.
  pg_session session(make_session_options(*c), retry_policy::bounded(), "replay");
  batch_applier applier(session, options);
  try {
    session.run([](pqxx::connection&) { return true; });  // connects, migrates the state schema
  } catch (const std::exception& e) {
    std::cerr << "sluice replay: PostgreSQL: " << redact_secrets(redact(e.what()), c->secrets)
              << "\n";
    return 1;
  }
  install_replay_signal_handlers();

  const auto start = std::chrono::steady_clock::now();
  progress_bar bar(total, !has_flag(args, "--no-progress") && progress_bar::is_terminal(stderr));
  size_t reported = 0;
  replayer replay(*c, applier, [&](std::string_view text) {
    if (reported++ >= shown_dead_letters) return;
    bar.clear();
    std::cerr << "dead letter: " << text << "\n";
  });

  int code = 0;
  std::string line;
  try {
    try {
      while (!g_replay_stop.load() && std::getline(*in, line)) {
        if (!replay.add_line(line)) break;
        bar.update(replay.totals().lines, replay.totals().bytes);
      }
    } catch (const std::invalid_argument& e) {  // a topic whose format is not supported
      bar.clear();
      std::cerr << "sluice replay: configuration: " << e.what() << "\n";
      code = 2;
    }
    replay.flush();  // the last batch, or everything before the line it stopped at
  } catch (const std::exception& e) {
    bar.clear();
    std::cerr << "sluice replay: failed: " << redact_secrets(redact(e.what()), c->secrets) << "\n";
    code = 1;
  }
  bar.finish();
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (reported > shown_dead_letters) {
    std::cerr << "(" << reported - shown_dead_letters
              << " more dead letters not shown: see the dead_letters table of "
              << c->postgres.state_schema << ")\n";
  }
  if (code == 0 && !replay.failure().empty()) {
    std::cerr << "sluice replay: stopped at " << replay.failure()
              << " (errors.tolerance: none; everything before it is applied)\n";
    code = 1;
  } else if (code == 0 && g_replay_stop.load()) {
    std::cerr << "sluice replay: interrupted after line " << replay.totals().lines
              << " (everything read is applied)\n";
    code = 1;
  } else if (code == 0 && in->bad()) {
    std::cerr << "sluice replay: read error on " << *path << "\n";
    code = 1;
  }
  std::cout << format_replay_summary(replay.totals(), elapsed) << std::flush;
  return code;
}

}  // namespace sluice
