// clock_nemesis.hpp — chaos's clock faults as a fault::Nemesis: each node's faked wall clock
// (a ClockModel, written where the node's processes read it by the run's ClockDrive) stepped
// or set to a new rate, one record per step with the faked time it left
// (fault::FaultRecord::faked_ns).
//
//   ClockNemesis clocks(nodes, fleet, drive);  // the run's node clocks, fleet and clock drive
//   clocks.invoke({.op = "step", .node = 0, .step_ns = -200'000'000, .kind = "step",
//                  .what = "NTP steps node 0 back 200 ms", .at = fault::Instant::now()}, t);
//   clocks.move(step, nodes[1], at, t);    // the clock part of a resume: moved, not recorded
//
// Verbs: "step" (the clock jumps by step_ns at the step's instant), "set_rate" (it runs at
// `rate` from this node's own write on) and "resume" (a VM's catch-up: the step only; the
// process nemesis sends the SIGCONT and records the step, fault/nemesis.hpp). A step for
// fault::kNoNode plays on every node, in index order. A node's clock is written only while its
// process runs (a killed node's clock is written again when it restarts), but every move is a
// clock write in its facts (NodeFacts::clock_writes), the window the fault check allows for it.
//
// Thread safety: thread-compatible; the nodes and the fleet are the driver's, on its thread.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "chaos/analysis.hpp"
#include "chaos/faketime.hpp"
#include "fault/fleet.hpp"
#include "fault/nemesis.hpp"
#include "fault/schedule.hpp"

namespace idbench::chaos {

class ClockDrive;

// One node's faked clock and what the analysis learns of it; its process is the fleet's, and
// how the clock reaches the process is the run's ClockDrive.
struct NodeClock {
  int index = 0;
  ClockModel clock;
  std::int64_t paused_since = -1;  // true ns of its SIGSTOP; -1: running
  std::int64_t down_since = -1;    // true ns of its kill; -1: up
  NodeFacts facts;
};

class ClockNemesis : public fault::Nemesis {
 public:
  // What a schedule may ask of it (fault/schedule.hpp); "resume" is a move, not a verb of its
  // own: the process nemesis plays a resume and has this one move the clock first.
  static constexpr std::array<std::string_view, 2> kVerbs = {"step", "set_rate"};
  static constexpr fault::Repertoire kRepertoire{"clock", kVerbs};

  ClockNemesis(std::vector<NodeClock>& nodes, const fault::Fleet& fleet, ClockDrive& drive)
      : nodes_(nodes), fleet_(fleet), drive_(drive) {}
  std::string_view kind() const override { return kRepertoire.nemesis; }
  void invoke(const fault::FaultStep& step, fault::Timeline& t) override;

  // Moves node n's clock as `step` says, at `at` (a late rate change is noted on `t`), without
  // a record; returns the node's faked wall time right after.
  std::int64_t move(const fault::FaultStep& step, NodeClock& n, fault::Instant at,
                    fault::Timeline& t);
  // Writes node n's clock where its processes read it, if its process runs.
  void rewrite(NodeClock& n) const;

 private:
  void change_rate(const fault::FaultStep& step, NodeClock& n, fault::Timeline& t) const;

  std::vector<NodeClock>& nodes_;
  const fault::Fleet& fleet_;
  ClockDrive& drive_;
};

}  // namespace idbench::chaos
