#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/model/batch_records.h"
#include "sinks/mariadb/session/mdb_connection.h"
#include "sinks/mariadb/session/state_schema.h"

namespace sluice::mdb {

// <state db>.dead_letters on MariaDB (SPEC §4), the contract of
// postgres/state/dead_letter_writer.h: the batch's letters in the batch transaction (so a
// letter is written exactly when the offsets move past it), by one array-bound INSERT; headers
// as JSON (json_text.h), raw key and value bytes as bytes.
//
// What MariaDB adds, so that no letter can fail its batch forever:
//   - one statement is one packet, at most the session's max_allowed_packet: letters are sent
//     in as many executions as their sizes need, and a letter too big for a packet on its own
//     is stored cut (value first, then key; headers dropped) with its reason saying what was
//     cut, the whole length and the SHA-256 of the whole bytes (the full message stays in
//     Kafka, or the DLQ topic);
//   - reason is `text` (65,535 bytes), target names varchar(64): longer ones are cut at a
//     character boundary, and the reason says so.
// AUTO_INCREMENT ids of an array-bound INSERT need not be consecutive (other sessions'
// inserts interleave), so the ids are read back by the write's random batch_marker.
//
// Holds no connection; reads @@max_allowed_packet on its first write (unless given) and keeps
// it. Threading: one thread at a time.
class dead_letter_writer {
 public:
  // packet_limit: the bytes one statement may take; 0: the server's max_allowed_packet.
  dead_letter_writer(const state_schema& schema, std::string connector, size_t packet_limit = 0);

  // Returns the number of rows written; their ids, in `letters`' order, into `ids` if given.
  size_t write(connection& conn, const std::vector<const dead_letter*>& letters,
               std::vector<int64_t>* ids = nullptr) const;

  // What a letter may take of a packet once the statement's own bytes are set aside.
  static size_t letter_budget(size_t packet_limit);

 private:
  std::string _table;
  std::string _connector;
  mutable size_t _packet_limit;
};

}  // namespace sluice::mdb
