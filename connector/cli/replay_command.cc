// sluice replay -c FILE --file F...: applies the records `kcat -C -J` printed (a file, or
// stdin with `--file -`), or Datastream Avro files (object containers, or folders of them:
// a backfill from Cloud Storage), through the prepare and apply stages `run` uses, without
// Kafka and without touching sluice.offsets (source/file_source.h reads, drive/replayer.h
// drives).
//
//   check the arguments, load the configuration, open the input     (2 when any fails)
//   reach the target and migrate the state schema                    (1 when it fails)
//   for each message the file source reads: replayer.add(message); redraw the progress bar
//     (stderr, terminals only)
//     stop early on errors.tolerance: none (the bad line), SIGINT/SIGTERM, a database error
//   flush the last batch; print the summary (stdout)
//
// Exit codes: 0 every line applied or dead-lettered; 1 stopped early (a bad line with
// errors.tolerance: none, a database failure, a signal); 2 usage or configuration error.

#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "connector/base/sink_options.h"
#include "connector/base/target_names.h"
#include "connector/cli/cli_options.h"
#include "connector/cli/commands.h"
#include "connector/cli/progress_bar.h"
#include "connector/cli/replay_summary.h"
#include "connector/config/redact.h"
#include "connector/drive/replayer.h"
#include "connector/prepare/stage_factory.h"
#include "connector/source/file_source.h"
#include "sinks/session_error.h"
#include "sinks/target.h"

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

struct replay_input {
  std::string path;
  bool avro = false;
};

bool starts_as_avro(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  return in.read(magic, 4) && std::string_view(magic, 4) == std::string_view("Obj\x01", 4);
}

// The inputs one --file names; an error text when it cannot be read.
std::optional<std::string> add_inputs(const std::string& path, std::vector<replay_input>& out) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (path != "-" && fs::is_directory(path, ec)) {
    std::vector<std::string> files;
    for (auto it = fs::recursive_directory_iterator(path, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_regular_file() && it->path().extension() == ".avro") {
        files.push_back(it->path().string());
      }
    }
    if (ec) return "cannot read folder " + path + ": " + ec.message();
    std::sort(files.begin(), files.end());
    for (std::string& f : files)
      out.push_back({std::move(f), true});
    return std::nullopt;
  }
  if (path != "-" && !std::ifstream(path)) {
    return "cannot open " + path + ": " + std::strerror(errno);
  }
  out.push_back({path, path != "-" && starts_as_avro(path)});
  return std::nullopt;
}

}  // namespace

int replay_command(const replay_options& command) {
  const std::vector<std::string>& paths = command.files;
  auto c = load_command_config(command.config_path, "replay");
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
  // Each --file in order: `-` (stdin) or a kcat file is read by lines; an Avro object
  // container, or a folder of them (.avro files, recursively, in path order: Datastream
  // writes <object>/<yyyy>/<mm>/<dd>/<hh>/<mi>/<name>.avro), is streamed block by block.
  std::vector<replay_input> inputs;
  for (const std::string& p : paths) {
    if (auto err = add_inputs(p, inputs)) {
      std::cerr << "sluice replay: " << *err << "\n";
      return 2;
    }
  }
  const bool any_avro =
      std::any_of(inputs.begin(), inputs.end(), [](const replay_input& i) { return i.avro; });
  if (any_avro && c->topics.empty()) {
    std::cerr << "sluice replay: Avro files are replayed as messages of the first configured "
                 "topic: configure one\n";
    return 2;
  }
  if (any_avro) {
    const message_format f = c->format_for(c->topics.front());
    if (f != message_format::datastream && f != message_format::auto_detect) {
      std::cerr << "sluice replay: Avro files are replayed as messages of the first configured "
                   "topic, "
                << c->topics.front() << ", whose format is " << to_string(f)
                << ": Datastream Avro needs format datastream or auto\n";
      return 2;
    }
  }
  std::optional<uint64_t> total = uint64_t{0};
  for (const replay_input& input : inputs) {
    const auto size = input.path == "-" ? size_of(0) : size_of(input.path);
    total = total && size ? std::optional<uint64_t>(*total + *size) : std::nullopt;
  }

  // Completed chunked records are decoded by the applier.
  apply_options options = make_applier_options(*c);
  options.chunk_decoders = chunk_decoder_factory(*c);
  // A person waits for a replay: a short, bounded retry policy, never a hang.
  const auto session = make_target(*c)->open("replay", retry_policy::bounded());
  const auto applier = session->make_applier(options);
  try {
    session->connect();  // connects, migrates the state schema
  } catch (const session_error& e) {
    // Not reached within the bounded retries: a service unreachable, as for every command.
    std::cerr << "sluice replay: " << target_display_name(target_of(*c)) << ": "
              << redact_secrets(redact(e.what()), c->secrets) << "\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "sluice replay: " << target_display_name(target_of(*c)) << ": "
              << redact_secrets(redact(e.what()), c->secrets) << "\n";
    return 1;
  }
  install_replay_signal_handlers();

  const auto start = std::chrono::steady_clock::now();
  progress_bar bar(total, command.progress && progress_bar::is_terminal(stderr));
  size_t reported = 0;
  replayer replay(*c, *applier, [&](std::string_view text) {
    if (reported++ >= shown_dead_letters) return;
    bar.clear();
    std::cerr << "dead letter: " << text << "\n";
  });

  int code = 0;
  std::string bad_read;
  file_source source(c->limits.max_message_bytes, g_replay_stop);
  const file_source::sink each = [&](source_message& m) {
    const bool go_on = replay.add(m);
    replay.count_input(source.lines(), source.bytes());
    bar.update(source.lines(), source.bytes());
    return go_on;
  };
  try {
    try {
      for (const replay_input& input : inputs) {
        if (g_replay_stop.load() || !replay.failure().empty()) break;
        const file_source::outcome read =
            input.avro ? source.read_avro(input.path, c->topics.front(), each)
                       : source.read_lines(input.path, each);
        replay.count_input(source.lines(), source.bytes());
        if (read == file_source::outcome::read_error) bad_read = input.path;
        if (!bad_read.empty()) break;
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
              << " more dead letters not shown: see the dead_letters table of " << c->state_schema()
              << ")\n";
  }
  if (code == 0 && !replay.failure().empty()) {
    std::cerr << "sluice replay: stopped at " << replay.failure()
              << " (errors.tolerance: none; everything before it is applied)\n";
    code = 1;
  } else if (code == 0 && g_replay_stop.load()) {
    std::cerr << "sluice replay: interrupted after line " << replay.totals().lines
              << " (everything read is applied)\n";
    code = 1;
  } else if (code == 0 && !bad_read.empty()) {
    std::cerr << "sluice replay: read error on " << bad_read << "\n";
    code = 1;
  }
  std::cout << format_replay_summary(replay.totals(), elapsed) << std::flush;
  return code;
}

}  // namespace sluice
