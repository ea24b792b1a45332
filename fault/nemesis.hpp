// nemesis.hpp — the one interface every fault kind of a run under faults implements (Jepsen's
// nemesis), the step of a schedule it plays, and the process nemesis chaos/ and coord/ share.
//
//   fault::ProcessNemesis processes(fleet);          // SIGSTOP, SIGCONT, kill -9, (re)start
//   processes.invoke({.op = "pause", .node = 0, .kind = "pause-node", .what = "node 0 paused"},
//                    timeline);                      // node 0 stopped; one record on the timeline
//   processes.teardown(timeline);                    // every node still paused is resumed
//
// A nemesis plays one FaultStep on the nodes (or members) it names and records what it did on
// the run's fault::Timeline: one record per step, with the step's true and monotonic instant,
// the kind and line the domain's results show, and, where it moved a clock, the node's faked
// wall time right after (FaultRecord::faked_ns). A harness note ("the rate change landed late")
// may precede the record; the record is always the last entry the step adds.
//
// Why one plain FaultStep and not a template over each domain's event type: the domains'
// events (chaos::Event, coord::FaultEvent) are schedules of the same few moves — a node (or
// all of them), a verb, a clock step or rate, the line to record — and one value lets a nemesis
// be shared between domains (ProcessNemesis serves both) and held behind one pointer type by a
// driver that dispatches to it. The verb is a word (`op`), not an enum, because each nemesis
// has its own verbs (a clock's "set_rate", etcd's "kill-leader"); a nemesis throws
// std::logic_error for a verb it does not play, so a wrong dispatch fails at once.
//
// Thread safety: a nemesis is thread-compatible, used from the thread that plays the schedule
// (the one that owns the fleet).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "fault/fleet.hpp"
#include "fault/timeline.hpp"

namespace idbench::fault {

// One step of a fault schedule, as a nemesis plays it.
struct FaultStep {
  std::string_view op{};     // the nemesis's verb ("pause", "step", "kill-leader", ...)
  int node = kNoNode;        // the node (or member) it names; kNoNode: every node, or the one
                             // the nemesis chooses (etcd's leader)
  std::int64_t step_ns = 0;  // a clock step (a clock's "step", chaos's "resume")
  double rate = 1.0;         // a clock's new rate ("set_rate")
  std::string kind{};        // the record's kind word, as the domain's results name it
  std::string what{};        // the record's line
  // The instant the step is played at, and recorded at; nullopt: recorded when it is done.
  // (Every member has an initialiser: a designated initialiser may leave any out.)
  std::optional<Instant> at{};
};

// What one nemesis plays, so that a dispatch table
// (schedule.hpp) is checked against it at compile time and invoke() refuses any other verb.
struct Repertoire {
  std::string_view nemesis;  // its kind()
  std::span<const std::string_view> verbs;

  constexpr bool plays(std::string_view op) const {
    for (const std::string_view v : verbs) {
      if (v == op) return true;
    }
    return false;
  }
};

// One fault kind.
class Nemesis {
 public:
  virtual ~Nemesis() = default;
  // What it plays: "process", "clock", "etcd", ...
  virtual std::string_view kind() const = 0;
  // Plays `step` and records it on `t` (see above). Throws std::logic_error for a verb it does
  // not play; the errors of what it drives (a node that does not start) pass through.
  virtual void invoke(const FaultStep& step, Timeline& t) = 0;
  // Undoes what is still in force at the end of the run (a paused node or member resumed) so
  // that the run can stop. Records nothing: the end of the run is not a fault.
  virtual void teardown(Timeline& /*t*/) {}
};

// What a domain adds to ProcessNemesis's moves, each optional.
struct ProcessHooks {
  // Starts node k the domain's way (its start-up protocol); default: fleet.start(k).
  std::function<void(int k)> start{};
  // Before a node's SIGCONT: what a resume moves besides the process (chaos steps the
  // node's clock, a VM's catch-up). Returns the node's faked wall time if it moved a clock.
  std::function<std::optional<std::int64_t>(const FaultStep&, int k, Instant at)> before_resume{};
  // After each node's move, with the step's instant: the domain's own bookkeeping (when a
  // node was paused or down).
  std::function<void(const FaultStep&, int k, Instant at)> played{};
};

// Processes of a fault::Fleet. Verbs: "pause" (SIGSTOP), "resume" (SIGCONT), "kill" (kill -9
// and reap), "start" (node k again after a kill, or a new node when k == fleet.size()). A step
// for kNoNode plays on every node of the fleet, in index order.
class ProcessNemesis : public Nemesis {
 public:
  using Hooks = ProcessHooks;

  static constexpr std::array<std::string_view, 4> kVerbs = {"pause", "resume", "kill", "start"};
  static constexpr Repertoire kRepertoire{"process", kVerbs};

  explicit ProcessNemesis(Fleet& fleet, Hooks hooks = {});
  std::string_view kind() const override { return kRepertoire.nemesis; }
  void invoke(const FaultStep& step, Timeline& t) override;
  // Resumes every running node still paused.
  void teardown(Timeline& t) override;

 private:
  std::optional<std::int64_t> play_on(const FaultStep& step, int k, Instant at);

  Fleet& fleet_;
  Hooks hooks_;
};

}  // namespace idbench::fault
