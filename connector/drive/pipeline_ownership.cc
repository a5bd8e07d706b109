// The pipeline's side of partition ownership (pipeline.h): assignments and revocations, the
// claims and resyncs the partition owner's thread answers, and the messages of partitions that
// are not ready to be consumed yet. Consumer thread only.
#include "connector/drive/pipeline.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "connector/base/log.h"
#include "connector/source/kafka_message.h"

namespace sluice {
namespace {

using clock_type = std::chrono::steady_clock;

// How long the consumer thread waits for the partition owner's claims and offset reads before
// it polls on and applies the answer when it comes (PostgreSQL answers in milliseconds when it
// is there; the wait keeps the common case a plain assignment at the stored offsets).
constexpr auto k_owner_wait = std::chrono::seconds(3);
// How long a revocation waits for a claim of the revoked partitions still being retried.
constexpr auto k_cancel_wait = std::chrono::seconds(30);
// How long a fenced partition the group still assigns here waits before it is claimed again: a
// member that was frozen past its session timeout (a zombie) learns from its next heartbeat,
// within heartbeat.interval.ms, that it lost the partition; one that is still assigned it
// after this is its owner by the group's word.
constexpr auto k_fence_grace = std::chrono::seconds(10);

std::string label(const topic_partition& tp) {
  return tp.topic + "[" + std::to_string(tp.partition.value()) + "]";
}

}  // namespace

void pipeline::apply_claims(std::vector<owner_worker::claimed> claims, uint64_t assigning,
                            std::map<topic_partition, int64_t>* starts) {
  std::vector<topic_partition> ready;
  kafka_partition_list seek(rd_kafka_topic_partition_list_new(8));
  for (owner_worker::claimed& c : claims) {
    for (const claimed_partition& claim : c.partitions) {
      const topic_partition tp{c.topic, claim.partition};
      auto it = _unclaimed.find(tp);
      if (it == _unclaimed.end() || it->second != c.ticket) continue;  // revoked meanwhile
      _unclaimed.erase(it);
      _partitions.claim(tp, claim.epoch, claim.next.value_or(kafka_offset{-1}), lane_of(tp));
      SLUICE_LOG(
          info, "pipeline",
          "claimed " << label(tp) << " epoch " << claim.epoch.value() << ", starting at "
                     << (claim.next ? std::to_string(claim.next->value())
                         : _takeover.start(tp)
                             ? std::to_string(*_takeover.start(tp)) + " (" + _takeover.group() +
                                   "'s committed offset)"
                             : _config.kafka_property("auto.offset.reset").value_or("latest")));
      if (starts && c.ticket == assigning) {
        (*starts)[tp] = start_offset(tp, claim.next);
        continue;
      }
      // Assigned earlier, paused and held until now: start at the stored offset.
      rd_kafka_topic_partition_list_add(seek.get(), tp.topic.c_str(), tp.partition.value())
          ->offset = start_offset(tp, claim.next);
      ready.push_back(tp);
    }
  }
  if (ready.empty()) return;
  // Fetched before the seek (a partition resumed meanwhile): consumed again from the seek.
  const std::set<topic_partition> sought(ready.begin(), ready.end());
  drop_unready(0, &sought);
  _consumer->seek(seek.get());
  resume_ready(ready);
}

void pipeline::resume_ready(const std::vector<topic_partition>& parts) {
  if (_paused) return;  // PAUSED: they wait for the resume with the others
  if (!_held_back.empty()) {
    // Under backpressure: they wait with the others (resumed when the held batch goes).
    _held_back.insert(_held_back.end(), parts.begin(), parts.end());
    return;
  }
  _consumer->resume(parts);
}

void pipeline::drop_unready(size_t from, const std::set<topic_partition>* sought) {
  if (_unclaimed.empty() && _resync_ticket == 0 && !sought) return;
  const auto unready = [&](const kafka_message& m) {
    const topic_partition tp = partition_of(*m);
    return _unclaimed.count(tp) > 0 || (_resync_ticket != 0 && _resync_paused.count(tp) > 0) ||
           (sought && sought->count(tp) > 0);
  };
  const auto first = _batch.begin() + static_cast<std::ptrdiff_t>(std::min(from, _batch.size()));
  const auto kept = std::remove_if(first, _batch.end(), unready);
  if (kept == _batch.end()) return;
  _batch.erase(kept, _batch.end());
  _batch_trimmed = true;  // the run loop counts the batch anew
}

std::vector<int64_t> pipeline::on_assigned(const std::vector<topic_partition>& parts) {
  // Inside a poll: what it fetched before this callback is not filtered yet.
  drop_unready(0);
  // Claimed on the partition owner's thread; waited for briefly, so that the usual assignment
  // starts right at the stored offsets.
  const uint64_t ticket = ++_claim_tickets;
  std::map<std::string, std::vector<partition_id>> by_topic;
  for (const topic_partition& tp : parts) {
    by_topic[tp.topic].push_back(tp.partition);
    _assigned.insert(tp);
    _unclaimed[tp] = ticket;
    _resync_paused.erase(tp);  // claimed anew: a resync waiting for offsets leaves it alone
  }
  for (const auto& [topic, partitions] : by_topic)
    _owner->claim(ticket, topic, partitions);
  std::map<topic_partition, int64_t> starts;
  const auto deadline = clock_type::now() + k_owner_wait;
  while (starts.size() < parts.size() && clock_type::now() < deadline &&
         _state.get() != connector_state::failed) {
    apply_claims(_owner->take_claims(), ticket, &starts);
    if (starts.size() < parts.size()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  _consumer_probe.rebalance();
  std::vector<topic_partition> held;
  std::vector<int64_t> out;
  out.reserve(parts.size());
  for (const topic_partition& tp : parts) {
    auto it = starts.find(tp);
    if (it != starts.end()) {
      out.push_back(it->second);
    } else {
      out.push_back(assignment_listener::held);
      held.push_back(tp);
    }
  }
  if (!held.empty()) {
    SLUICE_LOG(warn, "pipeline",
               held.size() << " partition(s) assigned before " << target_name()
                           << " answered their claim: held paused until it does");
  }
  if (_paused) _consumer->pause(parts);  // PAUSED: new partitions wait for the resume too
  if (!_held_back.empty()) {
    // Under backpressure: these wait with the others (resumed when the held batch goes).
    _held_back.insert(_held_back.end(), parts.begin(), parts.end());
    if (!_paused) _consumer->pause(parts);
  }
  return out;
}

void pipeline::on_revoked(const std::vector<topic_partition>& parts, bool lost) {
  // Inside a poll: what it fetched before this callback is not filtered yet, and a dispatch
  // below must not ship messages of partitions waiting for a claim or a resync.
  drop_unready(0);
  std::vector<topic_partition> unclaimed;
  for (const topic_partition& tp : parts) {
    if (_unclaimed.erase(tp) > 0) unclaimed.push_back(tp);
    _resync_paused.erase(tp);
  }
  // A claim still retried for them must not land after the next owner's.
  if (!unclaimed.empty()) _owner->cancel(unclaimed, k_cancel_wait);
  const bool failed = _state.get() == connector_state::failed;
  if (lost || failed || cannot_commit()) {
    // Someone else owns them already (or PostgreSQL is away and nothing can commit now):
    // abandon everything in flight, then resync the rest.
    ++_generation;
    _batch.clear();
    _batch_bytes = 0;
    drop_held();
    if (!failed) _resync_requested = true;
  } else {
    // Still the owner: finish and commit what was consumed of them first.
    dispatch();
  }
  settle();
  bool was_fenced = false;
  for (const topic_partition& tp : parts) {
    _partitions.remove(tp);
    _assigned.erase(tp);
    was_fenced |= _fenced.erase(tp) > 0;
    // Lost ones are named too: "consumer: lost N partition(s)" does not say which.
    SLUICE_LOG(info, "pipeline", (lost ? "lost " : "released ") << label(tp));
  }
  if (was_fenced) show_fenced();
  forget_stopped(parts);
  std::erase_if(_batch,
                [&](const kafka_message& m) { return !_partitions.owns(partition_of(*m)); });
}

void pipeline::resync() {
  _resync_requested = false;
  ++_generation;  // work in flight is abandoned
  _batch.clear();
  _batch_bytes = 0;
  drop_held();
  settle();
  _resync_requested = false;  // what settle() abandoned is resynced here
  std::set<topic_partition> owned;
  for (const auto& [tp, e] : _partitions.snapshot())
    owned.insert(tp);
  const uint64_t ticket = ++_claim_tickets;
  _owner->read_offsets(ticket);
  const auto deadline = clock_type::now() + k_owner_wait;
  while (clock_type::now() < deadline && _state.get() != connector_state::failed) {
    if (auto answer = _owner->take_offsets(); answer && answer->first == ticket) {
      finish_resync(answer->second, owned);
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  // PostgreSQL is slow to answer: poll on with these partitions paused, and their messages
  // dropped, until it does (take_owner_answers).
  _resync_ticket = ticket;
  _resync_paused = owned;
  if (!owned.empty()) _consumer->pause({owned.begin(), owned.end()});
  SLUICE_LOG(warn, "pipeline", "resync waits for " << target_name() << ": partitions paused");
}

void pipeline::finish_resync(const std::vector<stored_offset>& offsets,
                             const std::set<topic_partition>& parts) {
  std::map<topic_partition, stored_offset> stored;
  for (const stored_offset& s : offsets) {
    stored[{s.topic, s.partition}] = s;
  }
  std::vector<topic_partition> fenced, ready;
  kafka_partition_list seek(rd_kafka_topic_partition_list_new(8));
  for (const topic_partition& tp : parts) {
    const std::optional<partition_table::entry> entry = _partitions.get(tp);
    if (!entry) continue;  // revoked meanwhile
    auto it = stored.find(tp);
    if (it == stored.end() || it->second.epoch != entry->epoch) {
      fenced.push_back(tp);
      const int64_t theirs = it == stored.end() ? -1 : it->second.epoch.value();
      _fenced[tp] = {entry->epoch.value(), theirs, entry->committed.value(),
                     clock_type::now() + k_fence_grace};
      SLUICE_LOG(
          warn, "pipeline",
          "fenced " << label(tp) << ": another owner holds epoch " << theirs
                    << " (ours: " << entry->epoch.value() << "); claimed again in "
                    << std::chrono::duration_cast<std::chrono::seconds>(k_fence_grace).count()
                    << " s if the group still assigns it here");
      continue;
    }
    const kafka_offset committed = it->second.next.value_or(kafka_offset{-1});
    _partitions.committed(tp, committed);
    _partitions.rewind_to_committed(tp);
    rd_kafka_topic_partition_list_add(seek.get(), tp.topic.c_str(), tp.partition.value())->offset =
        start_offset(tp, it->second.next);
    ready.push_back(tp);
  }
  for (const topic_partition& tp : fenced)
    _partitions.remove(tp);
  if (!fenced.empty()) {
    _consumer->pause(fenced);
    show_fenced();
  }
  // Fetched before the seek (a partition resumed while the offsets were read): consumed again.
  std::set<topic_partition> sought(ready.begin(), ready.end());
  sought.insert(fenced.begin(), fenced.end());
  drop_unready(0, &sought);
  _consumer->seek(seek.get());
  if (_resync_ticket != 0) {
    // The partitions were paused for the wait: resume those still owned.
    _resync_ticket = 0;
    _resync_paused.clear();
    resume_ready(ready);
  }
}

void pipeline::reclaim_fenced() {
  const auto now = clock_type::now();
  const uint64_t ticket = _claim_tickets + 1;
  std::map<std::string, std::vector<partition_id>> by_topic;
  for (auto it = _fenced.begin(); it != _fenced.end();) {
    const topic_partition tp = it->first;
    if (now < it->second.reclaim_at || _unclaimed.count(tp) > 0) {
      ++it;
      continue;
    }
    it = _fenced.erase(it);
    if (_assigned.count(tp) == 0) continue;  // revoked meanwhile: its next owner claims it
    SLUICE_LOG(warn, "pipeline",
               "claiming " << label(tp) << " again: the group still assigns it here");
    _unclaimed[tp] = ticket;
    by_topic[tp.topic].push_back(tp.partition);
  }
  if (by_topic.empty()) return;
  _claim_tickets = ticket;
  // Answered through take_owner_answers(): seeks to the stored offset and resumes.
  for (const auto& [topic, partitions] : by_topic)
    _owner->claim(ticket, topic, partitions);
  show_fenced();
}

void pipeline::show_fenced() {
  std::string why;
  for (const auto& [tp, f] : _fenced) {
    why += (why.empty() ? "" : "; ") + label(tp) + " fenced: another owner holds epoch " +
           std::to_string(f.theirs) + " (ours: " + std::to_string(f.ours) +
           "), claimed again if the group still assigns it here";
  }
  _state.degrade("ownership", why);
  _consumer_probe.fenced(_fenced.size());
}

void pipeline::take_owner_answers() {
  apply_claims(_owner->take_claims(), 0, nullptr);
  if (_resync_ticket == 0) return;
  if (auto answer = _owner->take_offsets(); answer && answer->first == _resync_ticket) {
    const std::set<topic_partition> parts = _resync_paused;
    finish_resync(answer->second, parts);
  }
}

}  // namespace sluice
