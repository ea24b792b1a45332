// schedule.hpp — a fault schedule as data and the one loop that plays it (Jepsen's nemesis
// schedule): each kind of a domain's events declared once as the nemesis that plays it, its
// verb and the node it names (a Dispatch table, checked at compile time); the run's nemeses
// by kind word (Nemeses); play_schedule waits for each step's instant on the run's
// fault::Timeline and hands the step to its nemesis. chaos/ and coord/ play their scenarios
// through it; neither switches on its event kinds.
//
//   enum class Kind { stop, resume };
//   inline constexpr std::array<fault::Dispatch<Kind>, 2> kPlays = {{
//       {Kind::stop, "process", "pause", fault::fixed_node(0)},
//       {Kind::resume, "process", "resume", fault::fixed_node(0)},
//   }};
//   static_assert(fault::each_kind_once(kPlays) &&
//                 fault::playable(kPlays,
//                                 std::array{fault::ProcessNemesis::kRepertoire}));
//
//   fault::ProcessNemesis processes(fleet);
//   fault::Nemeses nemeses;
//   nemeses.add(processes);
//   std::vector<fault::ScheduledStep> steps = {
//       fault::schedule_step(kPlays, Kind::stop, 500'000'000, {.kind = "stop", .what = "..."})};
//   fault::play_schedule(steps, nemeses, timeline, {.watch = [&] { fleet.check(); }});
//
// Why a table and not a switch in each driver: the mapping is a fact about the kinds, read by
// whoever plays them (a driver, a test), and a table can be checked whole where it is declared:
// every kind once, every nemesis one the domain has, every verb one that nemesis plays. A wrong
// dispatch the compiler cannot see (a nemesis a run did not register) is refused before the
// first step is played; a verb a nemesis does not play still fails when played (nemesis.hpp).
//
// Thread safety: the tables are constants; play_schedule runs on the thread that owns the
// nemeses and the timeline (thread-compatible, as they are).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "fault/nemesis.hpp"
#include "fault/timeline.hpp"

namespace idbench::fault {

// Which node the step of a kind names.
enum class Aim {
  events_node,  // the event's own node (kNoNode: every node)
  fixed,        // Target::node, whatever the event says (coord's victim, node 0)
  none,         // kNoNode: the nemesis chooses (etcd's leader) or plays on every node
  new_node,     // a node not started yet: the index the run's fleet gives it when played
};

struct Target {
  Aim aim = Aim::events_node;
  int node = kNoNode;  // Aim::fixed only
};
inline constexpr Target kEventsNode{Aim::events_node, kNoNode};
inline constexpr Target kNoTarget{Aim::none, kNoNode};
inline constexpr Target kNewNode{Aim::new_node, kNoNode};
constexpr Target fixed_node(int k) { return {Aim::fixed, k}; }

// How one kind of a domain's events is played.
template <class E>
struct Dispatch {
  E kind;
  std::string_view nemesis;  // the kind() of the nemesis that plays it ("clock", "process")
  std::string_view op;       // its verb (FaultStep::op)
  Target target = kEventsNode;
};

// True when no kind stands twice in `table`, so a kind has one way to be played. A table that
// must cover a dense enum also states its size against the last enumerator (enum_names.hpp).
template <class E, std::size_t N>
constexpr bool each_kind_once(const std::array<Dispatch<E>, N>& table) {
  for (std::size_t i = 0; i < N; ++i) {
    for (std::size_t j = i + 1; j < N; ++j) {
      if (table[i].kind == table[j].kind) return false;
    }
  }
  return true;
}

// True when every row names one of `nemeses` and a verb that nemesis plays, and a fixed node
// is a node (>= 0).
template <class E, std::size_t N, std::size_t M>
constexpr bool playable(const std::array<Dispatch<E>, N>& table,
                        const std::array<Repertoire, M>& nemeses) {
  for (const Dispatch<E>& d : table) {
    bool found = false;
    for (const Repertoire& r : nemeses) {
      if (r.nemesis == d.nemesis && r.plays(d.op)) found = true;
    }
    if (!found || (d.target.aim == Aim::fixed && d.target.node < 0)) return false;
  }
  return true;
}

// The row of `table` for `kind`; std::logic_error when it has none (a table that does not
// cover its enum, which each_kind_once's size check is there to prevent).
template <class E, std::size_t N>
constexpr const Dispatch<E>& dispatch_of(const std::array<Dispatch<E>, N>& table, E kind) {
  for (const Dispatch<E>& d : table) {
    if (d.kind == kind) return d;
  }
  throw std::logic_error("a fault kind without a row in its dispatch table");
}

// One step of a schedule: its instant, the nemesis that plays it and what it plays.
struct ScheduledStep {
  std::int64_t at_ns = 0;      // since the timeline's instant 0
  std::string_view nemesis{};  // the kind() of the nemesis that plays it
  Target target{};             // resolved into step.node when played
  FaultStep step{};            // step.node: the event's own node (Aim::events_node)
};

// The step for an event of `kind` at `at_ns`: `step` (its node, amounts, record kind and line)
// with the verb, nemesis and target `table` declares for the kind.
template <class E, std::size_t N>
ScheduledStep schedule_step(const std::array<Dispatch<E>, N>& table, E kind, std::int64_t at_ns,
                            FaultStep step) {
  const Dispatch<E>& d = dispatch_of(table, kind);
  step.op = d.op;
  return {at_ns, d.nemesis, d.target, std::move(step)};
}

// The nemeses of one run, by kind word. Holds references: the nemeses outlive it.
class Nemeses {
 public:
  // Plays the steps for `n.kind()`; std::logic_error when that kind is already here.
  Nemeses& add(Nemesis& n);
  // A nemesis of `kind` this run does not have (coord's etcd with given endpoints): a step
  // for it throws idbench::Error "<the step's kind word> <why>" when its turn comes.
  Nemeses& lack(std::string_view kind, std::string why);
  // Whether steps for `kind` were declared here, as added or lacking.
  bool knows(std::string_view kind) const;
  // The nemesis that plays `step` for `kind`: Error for a lacking one; std::logic_error for
  // a kind never declared (a wrong dispatch).
  Nemesis& of(std::string_view kind, const FaultStep& step) const;

 private:
  struct Entry {
    std::string kind;
    Nemesis* nemesis = nullptr;  // nullptr: lacking, for `why`
    std::string why;
  };
  const Entry* find(std::string_view kind) const;

  std::vector<Entry> entries_;
};

// When a step's record is stamped.
enum class Stamp {
  on_time,    // at its instant: read as its wait ends and passed as FaultStep::at (chaos: a
              // clock step happens at that instant)
  when_done,  // when its nemesis has played it (coord: a new node is recorded once ready)
};

struct PlayOptions {
  std::function<void()> watch{};    // called while waiting (wait_watching)
  std::function<int()> new_node{};  // the index a new node gets (Aim::new_node)
  Stamp stamp = Stamp::on_time;
};

// A step played: its position in the schedule given and its record's in Timeline::history().
struct Played {
  std::size_t step = 0;
  std::size_t record = 0;
};

// Plays `steps` in order of at_ns (steps at one instant in the order given): waits until
// t.start_mono_ns() + at_ns (watching), resolves the step's node, invokes its nemesis. Every
// step's nemesis is looked up before the first wait, so a wrong dispatch (std::logic_error)
// fails before anything is played. Returns the steps played, in play order. Interrupted,
// Error and the nemeses' errors pass through.
std::vector<Played> play_schedule(std::span<const ScheduledStep> steps, const Nemeses& nemeses,
                                  Timeline& t, const PlayOptions& options = {});

}  // namespace idbench::fault
