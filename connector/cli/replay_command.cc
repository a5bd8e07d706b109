// sluice replay -c FILE --file F...: applies the records `kcat -C -J` printed (a file, or
// stdin with `--file -`), or Datastream Avro files (object containers, or folders of them:
// a backfill from Cloud Storage), through decode → merge → apply, without Kafka and without
// touching sluice.offsets (see cli/replayer.h for the loop).
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

#include "connector/cli/cli_options.h"
#include "connector/cli/commands.h"
#include "connector/cli/progress_bar.h"
#include "connector/cli/replayer.h"
#include "connector/config/redact.h"
#include "connector/runtime/stage_factory.h"
#include "schemas/avro/avro_block_stream.h"
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

// A kcat -J file (or stdin) by lines. False on a read error or when the replay must stop.
bool replay_lines(const std::string& path, replayer& replay, progress_bar& bar) {
  std::ifstream file;
  std::unique_ptr<char[]> file_buffer;
  std::istream* in = &std::cin;
  if (path != "-") {
    constexpr size_t buffer_size = 1 << 20;
    file_buffer = std::make_unique<char[]>(buffer_size);
    file.rdbuf()->pubsetbuf(file_buffer.get(), buffer_size);
    file.open(path, std::ios::binary);
    in = &file;
  }
  std::string line;
  while (!g_replay_stop.load() && std::getline(*in, line)) {
    if (!replay.add_line(line)) return false;
    bar.update(replay.totals().lines, replay.totals().bytes);
  }
  return !in->bad();
}

// A Datastream Avro file, block by block, as messages of the first configured topic. Records
// are numbered on from `records_before` (the records of the files before it), so that every
// change of one replay keeps an origin offset of its own (keyless tables record it).
bool replay_avro_file(const std::string& path, const std::string& topic, replayer& replay,
                      progress_bar& bar, size_t max_block_bytes, uint64_t& records_before) {
  std::ifstream in(path, std::ios::binary);
  avro_block_stream blocks(max_block_bytes);
  std::string block;
  uint64_t counted = 0;
  // A file that cannot be cut into blocks: one dead letter, the blocks before it applied.
  auto fail = [&](const error& e) {
    return replay.add_unreadable(topic, path, records_before + blocks.first_record(), e);
  };
  uint64_t records = 0;
  struct count_on_exit {
    uint64_t& total;
    const uint64_t& added;
    ~count_on_exit() { total += added; }
  } on_exit{records_before, records};
  if (auto err = blocks.open(in)) return fail(*err);
  while (!g_replay_stop.load()) {
    auto more = blocks.next(block);
    replay.add_bytes(blocks.bytes_read() - counted);
    counted = blocks.bytes_read();
    if (!more) return fail(more.err());
    if (!*more) break;
    const std::string where = path + " record " + std::to_string(blocks.first_record());
    if (!replay.add_avro_block(topic, where, records_before + blocks.first_record(), block)) {
      return false;
    }
    records = blocks.first_record() + blocks.records();
    bar.update(replay.totals().lines, replay.totals().bytes);
  }
  return !in.bad();
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
  progress_bar bar(total, command.progress && progress_bar::is_terminal(stderr));
  size_t reported = 0;
  replayer replay(*c, applier, [&](std::string_view text) {
    if (reported++ >= shown_dead_letters) return;
    bar.clear();
    std::cerr << "dead letter: " << text << "\n";
  });

  int code = 0;
  std::string bad_read;
  uint64_t avro_records = 0;
  try {
    try {
      for (const replay_input& input : inputs) {
        if (g_replay_stop.load() || !replay.failure().empty()) break;
        bool ok = input.avro ? replay_avro_file(input.path, c->topics.front(), replay, bar,
                                                c->limits.max_message_bytes, avro_records)
                             : replay_lines(input.path, replay, bar);
        if (!ok && replay.failure().empty() && !g_replay_stop.load()) bad_read = input.path;
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
  } else if (code == 0 && !bad_read.empty()) {
    std::cerr << "sluice replay: read error on " << bad_read << "\n";
    code = 1;
  }
  std::cout << format_replay_summary(replay.totals(), elapsed) << std::flush;
  return code;
}

}  // namespace sluice
