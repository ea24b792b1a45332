// nemesis.cpp — the process nemesis over fault::Fleet (see nemesis.hpp).
#include "fault/nemesis.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <vector>

namespace idbench::fault {

ProcessNemesis::ProcessNemesis(Fleet& fleet, Hooks hooks)
    : fleet_(fleet), hooks_(std::move(hooks)) {}

void ProcessNemesis::invoke(const FaultStep& step, Timeline& t) {
  const Instant at = step.at.value_or(Instant::now());
  std::vector<int> nodes;
  if (step.node == kNoNode) {
    for (int k = 0; k < fleet_.size(); ++k) nodes.push_back(k);
  } else {
    nodes.push_back(step.node);
  }
  std::optional<std::int64_t> faked;
  for (const int k : nodes) {
    const std::optional<std::int64_t> moved = play_on(step, k, at);
    if (!faked) faked = moved;
  }
  t.record_at(step.at.value_or(Instant::now()), step.node, step.kind, step.what, faked);
}

std::optional<std::int64_t> ProcessNemesis::play_on(const FaultStep& step, int k, Instant at) {
  std::optional<std::int64_t> faked;
  if (step.op == "pause") {
    fleet_.pause(k);
  } else if (step.op == "resume") {
    if (hooks_.before_resume) faked = hooks_.before_resume(step, k, at);
    fleet_.resume(k);
  } else if (step.op == "kill") {
    fleet_.kill(k);
  } else if (step.op == "start") {
    if (hooks_.start) {
      hooks_.start(k);
    } else {
      fleet_.start(k);
    }
  } else {
    throw std::logic_error(fmt::format("the process nemesis does not play '{}'", step.op));
  }
  if (hooks_.played) hooks_.played(step, k, at);
  return faked;
}

void ProcessNemesis::teardown(Timeline& /*t*/) {
  for (int k = 0; k < fleet_.size(); ++k) {
    if (fleet_.running(k) && fleet_.paused(k)) fleet_.resume(k);
  }
}

}  // namespace idbench::fault
