// scenario.hpp — the clock faults, as data: each scenario declared as a Jepsen test reads —
// its nodes (where their clocks start, their node ids), its schedule (timed events, each kind
// played by the nemesis kEventPlays names) and what it is judged on (the flags judge.hpp
// reads). The driver (driver.hpp) plays a schedule through fault/schedule.hpp; nothing in it is
// specific to a variant, a policy or an event kind.
//
//   const Scenario* s = find_scenario("ntp-step-back");
//   Scenario quick = scaled(*s, 0.2);   // same shape, every time and size × 0.2, for tests
//   fault::ScheduledStep step = scheduled(quick.events[0]);   // the clock nemesis's "step"
//
// Times are ms of true time since the run started. A clock step is a change of the node's
// faked wall clock; a rate scales how fast it runs (libfaketime's "x" modifier). Every size is
// full scale (−200 ms, −1 s, −5 s; a leap second; ...); `scaled` shrinks them all
// together so a test can run a scenario in a fraction of a second with the same shape.
//
// Thread safety: immutable data.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fault/schedule.hpp"
#include "plumbing/enum_names.hpp"

namespace idbench::chaos {

inline constexpr int kAllNodes = -1;

enum class EventKind {
  step,      // the node's clock jumps by `step_ms` (NTP step, date -s)
  set_rate,  // the node's clock runs at `rate` from now on (slew, smear)
  stop,      // SIGSTOP: the process freezes (a VM pause)
  resume,    // SIGCONT, after first stepping the clock by `step_ms` (a VM's catch-up)
  kill,      // SIGKILL: the process dies with its in-memory state
  restart,   // a new process with the same node id, configuration and clock
};
// The kinds' words in a run's event log (LoggedEvent::kind, the timeline in the JSON), which
// fault verification reads back.
inline constexpr std::array<plumbing::Named<EventKind>, 6> kEventKindNames = {{
    {EventKind::step, "step"},
    {EventKind::set_rate, "set_rate"},
    {EventKind::stop, "stop"},
    {EventKind::resume, "resume"},
    {EventKind::kill, "kill"},
    {EventKind::restart, "restart"},
}};
static_assert(plumbing::one_to_one(kEventKindNames) &&
              kEventKindNames.size() == static_cast<std::size_t>(EventKind::restart) + 1);
std::string_view name_of(EventKind kind);

// How each kind is played: by which nemesis (its kind() word), with which verb, on the event's
// own node. A resume is the process nemesis's: the driver's hook steps the clock first (a
// VM's catch-up). scenario.cpp checks every verb against the nemesis that plays it.
inline constexpr std::array<fault::Dispatch<EventKind>, 6> kEventPlays = {{
    {EventKind::step, "clock", "step", fault::kEventsNode},
    {EventKind::set_rate, "clock", "set_rate", fault::kEventsNode},
    {EventKind::stop, "process", "pause", fault::kEventsNode},
    {EventKind::resume, "process", "resume", fault::kEventsNode},
    {EventKind::kill, "process", "kill", fault::kEventsNode},
    {EventKind::restart, "process", "start", fault::kEventsNode},
}};
static_assert(fault::each_kind_once(kEventPlays) &&
              kEventPlays.size() == static_cast<std::size_t>(EventKind::restart) + 1);

struct Event {
  std::int64_t at_ms = 0;
  EventKind kind = EventKind::step;
  int node = kAllNodes;  // index of the node in the run, or kAllNodes
  std::int64_t step_ms = 0;
  double rate = 1.0;
  std::string_view why;  // one line for the event log and the report
};

// Where every node's clock starts.
enum class ClockBase {
  true_time,        // the real time
  absolute_at,      // reads `base_unix_ms` at `base_at_ms` into the run (the leap second)
  lifetime_end_at,  // reads the variant's first moment past its lifetime at `base_at_ms`
};

struct Scenario {
  std::string_view name;
  std::string_view summary;
  std::int64_t duration_ms = 0;
  // Its nodes: where their clocks start, and their node ids.
  ClockBase base = ClockBase::true_time;
  std::int64_t base_unix_ms = 0;
  std::int64_t base_at_ms = 0;
  // Fixed offsets: node i of K starts at -skew + 2·skew·i/(K-1) ms from the base.
  std::int64_t skew_ms = 0;
  // Nodes 0 and 1 get the same node id (a coordination failure at start-up).
  bool same_node_id = false;
  // Its schedule, in any order (played by instant, one instant's events in this order).
  std::vector<Event> events;
  // What it is judged on besides the policy's promise (JudgeSetup, judge.hpp), with
  // same_node_id above. Some clock goes back: `unsafe` may duplicate, `refuse` should refuse.
  bool steps_back = false;
  // A node restarts: only a persisted high-water mark keeps it from re-issuing.
  bool restarts = false;
  // The clock crosses the variant's lifetime: every policy must refuse, never wrap.
  bool exhausts = false;
};

std::span<const Scenario> scenarios();
// nullptr when there is no such scenario.
const Scenario* find_scenario(std::string_view name);
// Every time and size × `factor` (rates unchanged). factor > 0.
Scenario scaled(const Scenario& s, double factor);

// The fault step `e` is as kEventPlays plays it: its instant, nemesis, verb and node, its
// clock step and rate, and the record the results show (its kind's word and its line).
fault::ScheduledStep scheduled(const Event& e);

// One line per scenario for `idbench chaos --list`.
std::string describe_scenarios();

}  // namespace idbench::chaos
