// schedule.cpp — the nemeses of a run by kind word and the loop that plays a schedule on them
// (see schedule.hpp).
#include "fault/schedule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "plumbing/error.hpp"

namespace idbench::fault {
namespace {

// The node a step names once its target is resolved; the fresh index is asked for only then.
int node_for(const ScheduledStep& s, const PlayOptions& options) {
  switch (s.target.aim) {
    case Aim::events_node: return s.step.node;
    case Aim::fixed: return s.target.node;
    case Aim::none: return kNoNode;
    case Aim::new_node:
      if (!options.new_node) {
        throw std::logic_error(fmt::format("'{}' names a new node, but the schedule was played "
                                           "without a way to number one", s.step.kind));
      }
      return options.new_node();
  }
  return kNoNode;
}

}  // namespace

Nemeses& Nemeses::add(Nemesis& n) {
  if (knows(n.kind())) {
    throw std::logic_error(fmt::format("two nemeses of kind '{}' in one run", n.kind()));
  }
  entries_.push_back({std::string(n.kind()), &n, {}});
  return *this;
}

Nemeses& Nemeses::lack(std::string_view kind, std::string why) {
  if (knows(kind)) throw std::logic_error(fmt::format("nemesis kind '{}' declared twice", kind));
  entries_.push_back({std::string(kind), nullptr, std::move(why)});
  return *this;
}

bool Nemeses::knows(std::string_view kind) const { return find(kind) != nullptr; }

Nemesis& Nemeses::of(std::string_view kind, const FaultStep& step) const {
  const Entry* e = find(kind);
  if (e == nullptr) {
    throw std::logic_error(fmt::format("'{}' is dispatched to a '{}' nemesis, which this run "
                                       "does not have", step.kind, kind));
  }
  if (e->nemesis == nullptr) throw Error(fmt::format("{} {}", step.kind, e->why));
  return *e->nemesis;
}

const Nemeses::Entry* Nemeses::find(std::string_view kind) const {
  for (const Entry& e : entries_) {
    if (e.kind == kind) return &e;
  }
  return nullptr;
}

std::vector<Played> play_schedule(std::span<const ScheduledStep> steps, const Nemeses& nemeses,
                                  Timeline& t, const PlayOptions& options) {
  // A wrong dispatch fails here, before the first wait: `of` throws for a kind never declared.
  for (const ScheduledStep& s : steps) {
    if (!nemeses.knows(s.nemesis)) nemeses.of(s.nemesis, s.step);
  }
  std::vector<std::size_t> order(steps.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return steps[a].at_ns < steps[b].at_ns;
  });
  std::vector<Played> played;
  for (const std::size_t i : order) {
    const ScheduledStep& s = steps[i];
    t.wait_until(t.start_mono_ns() + s.at_ns, options.watch);
    FaultStep step = s.step;
    if (options.stamp == Stamp::on_time) step.at = Instant::now();
    step.node = node_for(s, options);
    nemeses.of(s.nemesis, step).invoke(step, t);
    played.push_back({i, t.history().size() - 1});  // the step's record is its last
  }
  return played;
}

}  // namespace idbench::fault
