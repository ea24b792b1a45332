// clock_nemesis.cpp — chaos's clock faults on the nodes' faked clocks (see clock_nemesis.hpp).
#include "chaos/clock_nemesis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "chaos/clock_drive.hpp"
#include "plumbing/raw_time.hpp"

namespace idbench::chaos {
namespace {

// Writing a timestamp file (write + rename) takes tens of µs, a page far less; a rate change
// allows this long for it to land (see ClockModel::change_rate): a forward jump of at most
// |Δrate| × 5 ms. A driver descheduled for longer than that is reported in the event log.
constexpr std::int64_t kRateWriteSlackNs = 5'000'000;

}  // namespace

void ClockNemesis::invoke(const fault::FaultStep& step, fault::Timeline& t) {
  if (!kRepertoire.plays(step.op)) {
    throw std::logic_error(fmt::format("the clock nemesis does not play '{}'", step.op));
  }
  const fault::Instant at = step.at.value_or(fault::Instant::now());
  std::optional<std::int64_t> faked;
  for (NodeClock& n : nodes_) {
    if (step.node != fault::kNoNode && step.node != n.index) continue;
    const std::int64_t moved = move(step, n, at, t);
    if (!faked) faked = moved;
  }
  t.record_at(at, step.node, step.kind, step.what, faked);
}

std::int64_t ClockNemesis::move(const fault::FaultStep& step, NodeClock& n, fault::Instant at,
                                fault::Timeline& t) {
  const std::int64_t write_from = plumbing::true_ns();
  if (step.op == "step" || step.op == "resume") {
    n.clock.step(at.true_ns, step.step_ns);
    rewrite(n);
  } else if (step.op == "set_rate") {
    change_rate(step, n, t);
  } else {
    throw std::logic_error(
        fmt::format("the clock nemesis does not move a clock for '{}'", step.op));
  }
  const std::int64_t written = plumbing::true_ns();
  n.facts.clock_writes.push_back({std::min(at.true_ns, write_from), written});
  return n.clock.fake_at(written);
}

void ClockNemesis::rewrite(NodeClock& n) const {
  if (fleet_.running(n.index)) {
    drive_.write(n, n.clock);
  }
}

// Anchored at this node's own write, not at the step: nodes are written one after the other,
// and the gap would be a small step back for the later ones.
void ClockNemesis::change_rate(const fault::FaultStep& step, NodeClock& n,
                               fault::Timeline& t) const {
  const double old_rate = n.clock.rate();
  const std::int64_t before = plumbing::true_ns();
  n.clock.change_rate(before, step.rate, kRateWriteSlackNs);
  rewrite(n);
  const std::int64_t late = plumbing::true_ns() - before - kRateWriteSlackNs;
  if (late > 0) {
    t.note(n.index, fmt::format("the rate change landed {:.1f} ms late: node {}'s clock "
                                "may have stepped back by up to {:.2f} ms",
                                late / 1e6, n.index, std::abs(step.rate - old_rate) * late / 1e6));
  }
}

}  // namespace idbench::chaos
