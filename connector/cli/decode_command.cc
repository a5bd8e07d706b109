// sluice decode: messages on stdin → the JSON lines of SPEC §3, the debugging view of the
// decoders and a fixture format.
//
//   for each line of stdin:
//     plain:        the line is one message value (topic "stdin", offset = line index)
//     --kafka-json: the line is a `kcat -C -J` record: its topic, partition, offset, key,
//                   headers and value make the message (decoders that need the key get it)
//     decode with the topic's decoder → print each catalog update, DDL record and change
//     errors → stderr as "topic[partition]@offset: reason" ("line N: reason" for a line
//              that is not a kcat record); decoding goes on with the next line
//
//   an Avro object container on stdin (Datastream Avro): block by block, offset = the
//     record's index in the file
//
// Exit codes: 0 every message decoded, 1 some input was refused (each on stderr; decoding went
// on past it, so the output is all the rest), 2 usage or configuration error.

#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>

#include "connector/cli/change_json.h"
#include "connector/cli/cli_options.h"
#include "connector/cli/commands.h"
#include "connector/prepare/topic_decoders.h"
#include "schemas/avro/avro_block_stream.h"
#include "schemas/common/kcat_line_reader.h"

namespace sluice {
namespace {

std::string origin_text(const raw_message& m) {
  return std::string(m.topic) + "[" + std::to_string(m.partition.value()) + "]@" +
         std::to_string(m.offset.value());
}

void print(const decode_output& decoded, std::string& out) {
  out.clear();
  for (const catalog_update& u : decoded.catalog) {
    append_catalog_update_json(out, u);
    out.push_back('\n');
  }
  for (const ddl_record& d : decoded.ddl) {
    append_ddl_json(out, d);
    out.push_back('\n');
  }
  for (const change& ch : decoded.changes) {
    append_change_json(out, ch);
    out.push_back('\n');
  }
  for (const chunk_piece& p : decoded.pieces) {
    append_chunk_piece_json(out, p);
    out.push_back('\n');
  }
  std::cout << out;
}

// Datastream Avro on stdin (an object container file): streamed block by block; each
// record's offset is its index in the file. 1 when something was refused.
int decode_avro(topic_decoders& decoders, size_t max_block_bytes, decode_output& decoded,
                std::string& out) {
  avro_block_stream blocks(max_block_bytes);
  std::string block;
  if (auto err = blocks.open(std::cin)) {
    std::cerr << "stdin: " << to_string(err->code) << ": " << err->message << "\n";
    return 1;
  }
  int refused = 0;
  for (;;) {
    auto more = blocks.next(block);
    if (!more) {
      std::cerr << "stdin: " << to_string(more.err().code) << ": " << more.err().message << "\n";
      return 1;
    }
    if (!*more) return refused;
    raw_message m;
    m.topic = "stdin";
    m.offset = kafka_offset{static_cast<int64_t>(blocks.first_record())};
    m.value = block;
    decoded.clear();
    if (auto err = decoders.for_topic(m.topic).decode(m, decoded)) {
      std::cerr << origin_text(m) << ": " << to_string(err->code) << ": " << err->message << "\n";
      refused = 1;
      continue;
    }
    for (size_t i = 0; i < decoded.changes.size(); ++i) {
      decoded.changes[i].source.origin.offset =
          kafka_offset{static_cast<int64_t>(blocks.first_record() + i)};
    }
    print(decoded, out);
  }
}

}  // namespace

int decode_command(const decode_options& options) {
  std::ios::sync_with_stdio(false);
  std::optional<config> c;
  if (options.config_path) {
    c = load_command_config(*options.config_path, "decode");
    if (!c) return 2;
  } else {
    c = config_with_defaults();
    c->name = "decode";
  }
  if (const auto& f = options.format) {
    bool known = false;
    for (size_t i = 0; i < message_format_names.size(); ++i) {
      if (message_format_names[i] == *f) {
        c->format = static_cast<message_format>(i);
        known = true;
      }
    }
    if (!known) {
      std::cerr << "sluice decode: unknown format '" << *f << "'\n";
      return 2;
    }
  }
  const bool kafka_json = options.kafka_json;
  topic_decoders decoders(*c);
  if (!kafka_json) {
    try {
      decoders.for_topic("stdin");
    } catch (const std::exception& e) {
      std::cerr << "sluice decode: " << e.what() << "\n";
      return 2;
    }
  }

  decode_output decoded;
  std::string line, out;
  // A JSON line starts with '{' (or blank): 'O' is an Avro object container ("Obj\x01").
  if (!kafka_json && std::cin.peek() == 'O')
    return decode_avro(decoders, c->limits.max_message_bytes, decoded, out);
  kcat_line_reader reader;
  kcat_message record;
  int64_t line_number = 0, index = 0;
  int refused = 0;  // the exit code: 1 once anything was refused
  while (std::getline(std::cin, line)) {
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    raw_message m;
    if (kafka_json) {
      if (auto err = reader.read(line, record)) {
        std::cerr << "line " << line_number << ": " << to_string(err->code) << ": " << err->message
                  << "\n";
        refused = 1;
        continue;
      }
      m = record.view();
    } else {
      m.topic = "stdin";
      m.offset = kafka_offset{index++};
      m.value = line;
    }
    decoder* dec = nullptr;
    try {
      dec = &decoders.for_topic(m.topic);
    } catch (const std::exception& e) {
      std::cerr << "sluice decode: " << e.what() << "\n";
      return 2;
    }
    decoded.clear();
    if (auto err = dec->decode(m, decoded)) {
      std::cerr << origin_text(m) << ": " << to_string(err->code) << ": " << err->message << "\n";
      refused = 1;
      continue;
    }
    print(decoded, out);
  }
  return refused;
}

}  // namespace sluice
