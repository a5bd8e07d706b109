#include "connector/cli/command_line.h"

#include <CLI/CLI.hpp>

#include <functional>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "connector/cli/build_info.h"
#include "connector/cli/commands.h"
#include "connector/cli/exit_codes.h"
#include "connector/cli/usage_errors.h"
#include "connector/config/config.h"

namespace sluice {
namespace {

CLI::Option* add_config(CLI::App& command, std::string& path) {
  return command.add_option("-c,--config", path, "the configuration file (YAML)")
      ->type_name("FILE")
      ->required();
}

}  // namespace

int run_command_line(int argc, char** argv) {
  CLI::App app("sluice — replicate CDC streams from Kafka into PostgreSQL or MariaDB", "sluice");
  app.set_version_flag(
      "-V,--version", [] { return version_text(); },
      "print sluice's version and commit, librdkafka's and libpq's, and exit");
  app.require_subcommand(1);
  app.footer(exit_codes_for(""));
  // A command's flags belong to it: `sluice -c x run` is refused, not guessed at.
  app.fallthrough(false);

  // What the chosen command runs, set by its callback once the whole line parsed.
  std::function<int()> command;

  std::string run_config;
  CLI::App* run =
      app.add_subcommand("run", "consume, merge and apply until stopped (SIGTERM drains)");
  add_config(*run, run_config);
  run->callback([&] { command = [&] { return run_command(run_config); }; });

  std::string check_config;
  CLI::App* check = app.add_subcommand(
      "check", "validate the configuration and, read-only, what the run needs; a table");
  add_config(*check, check_config);
  check->callback([&] { command = [&] { return check_command(check_config); }; });

  decode_options decode_opts;
  std::string decode_config, decode_format;
  CLI::App* decode =
      app.add_subcommand("decode", "decode messages from stdin into JSON lines (a debugging view)");
  decode->footer(
      "One JSON line per change {\"table\",\"op\",\"key\",\"csn\",\"image\",..}, per catalog "
      "update {\"catalog\":..}, per DDL record {\"ddl\":..}; refused messages on stderr as "
      "topic[partition]@offset: reason. An Avro object container on stdin is read block by "
      "block.\n\n" +
      exit_codes_for("decode"));
  decode->add_option("-c,--config", decode_config, "a configuration file (its format, overrides)")
      ->type_name("FILE");
  std::vector<std::string> formats(message_format_names.begin(), message_format_names.end());
  decode->add_option("-f,--format", decode_format, "the message format (default: auto)")
      ->check(CLI::IsMember(formats));
  decode->add_flag("--kafka-json", decode_opts.kafka_json,
                   "each line is a `kcat -C -J` record: its topic, partition, offset, key and "
                   "headers make the message");
  decode->callback([&] {
    if (!decode_config.empty()) decode_opts.config_path = decode_config;
    if (!decode_format.empty()) decode_opts.format = decode_format;
    command = [&] { return decode_command(decode_opts); };
  });

  replay_options replay_opts;
  bool no_progress = false;
  CLI::App* replay =
      app.add_subcommand("replay", "apply kcat dumps or Datastream Avro files, without Kafka");
  replay->footer(
      "Records go through decode, merge and apply in batches of batch.size, without touching "
      "sluice.offsets; undecodable messages go to the dead letters (errors.tolerance: none "
      "stops there); a progress bar on stderr (terminals), a summary on stdout.\n\n" +
      exit_codes_for("replay"));
  add_config(*replay, replay_opts.config_path);
  replay
      ->add_option("--file", replay_opts.files,
                   "a `kcat -C -J` output file (- for stdin), a Datastream Avro file, or a "
                   "folder of them read in path order (as the first topic); repeatable")
      ->type_name("F")
      ->required()
      ->allow_extra_args(false);
  replay->add_flag("--no-progress", no_progress, "no progress bar");
  replay->callback([&] {
    replay_opts.progress = !no_progress;
    command = [&] { return replay_command(replay_opts); };
  });

  status_options status_opts;
  CLI::App* status =
      app.add_subcommand("status", "offsets, lag and owner epoch per partition; table progress");
  add_config(*status, status_opts.config_path);
  status->add_flag("--json", status_opts.json,
                   "one JSON object: partitions, tables, kafka_reachable");
  status->callback([&] { command = [&] { return status_command(status_opts); }; });

  offsets_options offsets_opts;
  CLI::App* offsets = app.add_subcommand(
      "offsets", "show sluice's offsets beside the Kafka group's, or reset them");
  offsets->require_subcommand(1);
  CLI::App* offsets_show = offsets->add_subcommand(
      "show", "per partition: sluice's offset, the group's copy, watermarks, lag, epoch");
  CLI::App* offsets_reset = offsets->add_subcommand(
      "reset", "move sluice's offsets (and the group's copy) while no sluice runs");
  for (CLI::App* sub : {offsets_show, offsets_reset}) {
    add_config(*sub, offsets_opts.config_path);
    sub->add_option("--topic", offsets_opts.topics, "only this topic (repeatable)")
        ->type_name("T")
        ->allow_extra_args(false);
    sub->add_option("--partition", offsets_opts.partitions,
                    "only this partition of the topics (repeatable)")
        ->type_name("P")
        ->allow_extra_args(false);
  }
  offsets_show->add_flag("--json", offsets_opts.json, "one JSON object per partition and line");
  CLI::Option_group* to = offsets_reset->add_option_group("target", "where to move them");
  to->add_flag("--to-earliest", offsets_opts.to_earliest, "the low watermark");
  to->add_flag("--to-latest", offsets_opts.to_latest, "the high watermark (skip the backlog)");
  to->add_option("--to-offset", offsets_opts.to_offset, "this offset, clamped into the watermarks")
      ->type_name("N");
  to->add_option("--to-datetime", offsets_opts.to_datetime,
                 "the first message whose Kafka timestamp is at or after T (ISO 8601, UTC "
                 "unless it says, e.g. 2026-12-03T10:00:00Z; or epoch ms), by the broker's "
                 "offsets-for-times")
      ->type_name("T");
  to->require_option(1);
  offsets_reset->add_flag("--dry-run", offsets_opts.dry_run, "print the plan, change nothing");
  offsets_reset->footer(
      "Refused while the connector's consumer group has live members. In one transaction of "
      "the target database the offsets move and the owner epochs are bumped (a zombie cannot "
      "write after it); then the group's committed offsets in Kafka follow.\n\n" +
      exit_codes_for("offsets reset"));
  offsets_show->callback([&] {
    offsets_opts.action = offsets_options::action_kind::show;
    command = [&] { return offsets_command(offsets_opts); };
  });
  offsets_reset->callback([&] {
    offsets_opts.action = offsets_options::action_kind::reset;
    command = [&] { return offsets_command(offsets_opts); };
  });

  dead_letters_options letters_opts;
  CLI::App* letters = app.add_subcommand(
      "dead-letters", "list, show, re-apply or purge the connector's dead letters");
  letters->require_subcommand(1);
  CLI::App* letters_list =
      letters->add_subcommand("list", "the dead letters the filter selects, oldest first");
  CLI::App* letters_show =
      letters->add_subcommand("show", "one letter: reason, origin, raw bytes or stored change");
  CLI::App* letters_replay =
      letters->add_subcommand("replay", "re-apply the selected letters once their cause is fixed");
  CLI::App* letters_purge =
      letters->add_subcommand("purge", "delete the selected letters (needs --yes)");
  for (CLI::App* sub : {letters_list, letters_show, letters_replay, letters_purge})
    add_config(*sub, letters_opts.config_path);
  for (CLI::App* sub : {letters_list, letters_replay, letters_purge}) {
    sub->add_option("--table", letters_opts.table, "target table: schema.table or its name")
        ->type_name("T");
    sub->add_option("--kind", letters_opts.kind, "one kind of letter")
        ->check(CLI::IsMember({"decode", "routing", "rejected", "ddl_failed", "keyless", "chunk"}))
        ->type_name("K");
    sub->add_option("--reason", letters_opts.reason, "the reason holds this text (any case)")
        ->type_name("TEXT");
    sub->add_option("--topic", letters_opts.topic, "from this Kafka topic")->type_name("T");
    sub->add_option("--since", letters_opts.since,
                    "written at or after T (ISO 8601, e.g. 2026-12-03T10:00:00Z)")
        ->type_name("T");
    sub->add_option("--until", letters_opts.until, "written before T")->type_name("T");
    sub->add_option("--up-to-id", letters_opts.up_to_id,
                    "ids at most ID (list prints the newest it saw)")
        ->type_name("ID");
  }
  for (CLI::App* sub : {letters_replay, letters_purge}) {
    sub->add_option("--id", letters_opts.ids, "only this letter (repeatable)")
        ->type_name("ID")
        ->allow_extra_args(false);
  }
  letters_list->add_option("--limit", letters_opts.limit, "at most N letters (default 100)")
      ->type_name("N")
      ->check(CLI::Range(static_cast<size_t>(1), std::numeric_limits<size_t>::max()));
  letters_list->add_flag("--json", letters_opts.json, "one JSON object per letter and line");
  letters_show->add_option("id", letters_opts.ids, "the letter's id")
      ->type_name("ID")
      ->required()
      ->expected(1);
  letters_show->add_flag("--json", letters_opts.json, "one JSON object, bytes as base64");
  letters_purge->add_flag("--yes", letters_opts.yes,
                          "really delete (without it, only the count is printed, exit 1); "
                          "needs --up-to-id, --until or --id");
  letters_replay
      ->add_option("--limit", letters_opts.replay_limit, "take at most N letters (default all)")
      ->type_name("N")
      ->check(CLI::Range(static_cast<size_t>(1), std::numeric_limits<size_t>::max()));
  letters_replay->add_flag("--dry-run", letters_opts.dry_run,
                           "list what would be taken or skipped, apply nothing");
  letters_replay->footer(
      "Each batch.size of letters is applied in one transaction through the merge and the CSN "
      "guard, and the letters it took are deleted in that transaction; one that fails again "
      "keeps its id and takes its new reason (exit 1). One replay of a connector runs at a time: "
      "a second waits for the first. Offsets never move.\n\n" +
      exit_codes_for("dead-letters replay"));
  using letters_action = dead_letters_options::action_kind;
  const std::pair<CLI::App*, letters_action> letter_actions[] = {
      {letters_list, letters_action::list},
      {letters_show, letters_action::show},
      {letters_replay, letters_action::replay},
      {letters_purge, letters_action::purge}};
  for (const auto& [sub, action] : letter_actions) {
    sub->callback([&, action = action] {
      letters_opts.action = action;
      command = [&] { return dead_letters_command(letters_opts); };
    });
  }

  CLI::App* reference =
      app.add_subcommand("config-reference", "print every configuration key (Markdown)");
  reference->callback([&] { command = [] { return config_reference_command(); }; });

  config_import_options import_opts;
  CLI::App* config_cmd =
      app.add_subcommand("config", "work with configurations (import a Kafka Connect sink's)");
  config_cmd->require_subcommand(1);
  CLI::App* import_cmd = config_cmd->add_subcommand(
      "import", "a Debezium or Confluent JDBC sink's config (JSON or .properties) as sluice YAML");
  import_cmd->add_option("file", import_opts.file, "the connector's config")
      ->type_name("FILE")
      ->required();
  import_cmd->add_option("-o,--output", import_opts.output, "write the YAML here, not to stdout")
      ->type_name("OUT");
  import_cmd->footer(
      "Each key is commented with the connector key it came from; keys the connector leaves "
      "unset take that sink's defaults. Secrets become environment variables, named on stderr "
      "with what was left unmapped.\n\n" +
      exit_codes_for("config import"));
  import_cmd->callback([&] { command = [&] { return config_import_command(import_opts); }; });

  // Each command's help lists the exit codes it can end with.
  for (CLI::App* sub : {run, check, status, offsets, offsets_show, letters, letters_list,
                        letters_show, letters_purge, reference}) {
    const CLI::App* parent = sub->get_parent();
    const std::string path =
        parent == &app ? sub->get_name() : parent->get_name() + " " + sub->get_name();
    sub->footer(exit_codes_for(path));
  }
  // Refusals in sluice's words (usage_errors.h), naming the command parsed so far.
  app.failure_message([](const CLI::App* top, const CLI::Error& e) {
    std::string path;
    for (const CLI::App* at = top;;) {
      const std::vector<CLI::App*> chosen = at->get_subcommands();
      if (chosen.empty()) break;
      at = chosen.front();
      path += (path.empty() ? "" : " ") + at->get_name();
    }
    return usage_error(path, e.what(), top->remaining());
  });

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Prints the help, the version, or the error. CLI11's own codes (109 for an extra
    // argument, 106 for a missing one...) are all a usage error to sluice: 2, as documented.
    return app.exit(e) == 0 ? 0 : 2;
  }
  return command();
}

}  // namespace sluice
