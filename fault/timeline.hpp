// timeline.hpp — the clock and the history of a run under faults: its instant 0 on both
// clocks, the one waiting loop for the schedule's next instant, the one record of a fault
// event (FaultRecord) and the one progress-line format. chaos/, coord/ and real/ play their
// faults through it.
//
//   fault::Timeline t("chaos", "ntp-step-back", stderr);  // progress to stderr, or nullptr
//   t.start_in(50'000'000);                  // instant 0: 50 ms from now, on both clocks
//   t.wait_until(t.start_mono_ns() + 400'000'000, [&] { fleet.check(); });
//   t.record(0, "step", "NTP steps node 0 back 200 ms");
//       // history() gains {true_ns, mono_ns, 0, "step", "NTP steps ..."}; stderr gains
//       // "chaos ntp-step-back: +0.40 s  NTP steps node 0 back 200 ms"
//   t.note(1, "the rate change landed 7.1 ms late");   // kind "note": the harness's, not a fault
//   t.say("1234 IDs");                       // "chaos ntp-step-back: 1234 IDs"
//
// Times: waiting reads CLOCK_MONOTONIC (plumbing::monotonic_ns()); a record also carries true
// CLOCK_REALTIME (plumbing::true_ns(), the oracle IDs are judged against), both read by raw
// system calls libfaketime never sees.
//
// Thread safety: thread-compatible; progress lines are written whole, with one fmt::print each.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace idbench::fault {

// A record about no one node: a fault on every node, or on something that is not a node.
inline constexpr int kNoNode = -1;

// One instant, on both clocks.
struct Instant {
  std::int64_t true_ns = 0;  // CLOCK_REALTIME
  std::int64_t mono_ns = 0;  // CLOCK_MONOTONIC
  static Instant now();
};

// One event of a run's history: a fault played, or a harness note ("note").
struct FaultRecord {
  std::int64_t true_ns = 0;
  std::int64_t mono_ns = 0;
  int node = kNoNode;
  std::string kind;  // the player's word for it ("step", "kill", "fault", "note")
  std::string what;  // one line, as the progress line and the results show it
  // A clock fault: the faked wall time (Unix ns) of the node it moved, right after it moved
  // it (the first node's, for a fault on every node); nullopt for every other record. What a
  // test or a reader of the history checks the fault against; no result file writes it.
  std::optional<std::int64_t> faked_ns;
};

// How often a wait looks for interrupts and calls its watch function.
inline constexpr std::int64_t kWatchStepNs = 20'000'000;

// Sleeps until `deadline_mono_ns` in steps of at most kWatchStepNs, calling `watch` (if given)
// before each step, never at or after the deadline (a chaos node ends by itself at the stop
// time: watched then, it would look early); throws plumbing::Interrupted when a signal arrived
// (plumbing::InterruptGuard), also for a deadline already past.
void wait_watching(std::int64_t deadline_mono_ns, const std::function<void()>& watch = {});

class Timeline {
 public:
  // Progress lines read "<command> <scenario>: <line>"; `progress` may be nullptr (quiet).
  // Instant 0 is the construction until start_in() moves it.
  Timeline(std::string command, std::string scenario, std::FILE* progress);

  // Instant 0 = now + margin on both clocks. May be called again: chaos sets a provisional
  // start, then the real one once every node is armed.
  void start_in(std::int64_t margin_ns = 0);
  std::int64_t start_mono_ns() const { return start_.mono_ns; }
  std::int64_t start_true_ns() const { return start_.true_ns; }

  // See wait_watching().
  void wait_until(std::int64_t deadline_mono_ns, const std::function<void()>& watch = {}) const {
    wait_watching(deadline_mono_ns, watch);
  }

  // Appends a record at `at` (default: now) and says "+S.SS s  what" (seconds from instant 0
  // in true time); returns the record.
  FaultRecord record(int node, std::string kind, std::string what);
  // `faked_ns`: see FaultRecord.
  FaultRecord record_at(Instant at, int node, std::string kind, std::string what,
                        std::optional<std::int64_t> faked_ns = std::nullopt);
  // A harness note (kind "note"): something it could not do as planned. Said "note: what".
  FaultRecord note(int node, std::string what);
  const std::vector<FaultRecord>& history() const { return history_; }

  // One progress line (flushed); nothing when quiet.
  void say(std::string_view line) const;

 private:
  std::string prefix_;
  std::FILE* progress_;
  Instant start_;
  std::vector<FaultRecord> history_;
};

}  // namespace idbench::fault
