// scenario.hpp — the worker-id faults, as data: each scenario declared as a Jepsen test reads —
// its nodes (which etcd members node 0 talks to, a test hook in it), its schedule (what happens
// to which node or etcd member when, in units of the lease TTL, so the same shape runs with a
// 1 s or 2 s TTL; each kind played by the nemesis kFaultPlays names). What it is judged on is
// the same for every scenario (judge.hpp: no ID issued twice), so a scenario does not say it.
//
//   const WorkerScenario* s = find_worker_scenario("pause-beyond-lease");
//   for (const auto& e : s->events) ... scheduled(e, ttl_ns) ...   // the step its nemesis plays
//
// Node 0 is the victim of every node fault. A "fresh" node is started late, as a fleet would
// start a replacement: it claims the lowest free id, which is the victim's once its lease is
// gone. Thread safety: immutable data.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "fault/schedule.hpp"
#include "plumbing/enum_names.hpp"

namespace idbench::coord {

enum class FaultKind {
  pause_node,       // SIGSTOP node 0
  resume_node,      // SIGCONT node 0
  start_fresh,      // a new node
  kill_leader,      // SIGKILL the etcd leader
  restart_killed,   // start the killed (or stopped) member again on its data
  stop_follower,    // SIGTERM one member that does not lead
  pause_member0,    // SIGSTOP etcd member 0, the only member node 0 talks to
  resume_member0,   // SIGCONT it
};
// The kinds' words in the event log and the results.
inline constexpr std::array<plumbing::Named<FaultKind>, 8> kFaultKindNames = {{
    {FaultKind::pause_node, "pause-node"},
    {FaultKind::resume_node, "resume-node"},
    {FaultKind::start_fresh, "start-fresh-node"},
    {FaultKind::kill_leader, "kill-leader"},
    {FaultKind::restart_killed, "restart-member"},
    {FaultKind::stop_follower, "stop-follower"},
    {FaultKind::pause_member0, "pause-member"},
    {FaultKind::resume_member0, "resume-member"},
}};
static_assert(plumbing::one_to_one(kFaultKindNames) &&
              kFaultKindNames.size() == static_cast<std::size_t>(FaultKind::resume_member0) + 1);

// How each kind is played: by which nemesis (its kind() word), with which verb, on which node
// or member. The node faults are node 0's, the victim; a fresh node is the fleet's next index;
// the etcd nemesis chooses the leader, a follower and the member to restart itself; the member
// faults are member 0's. The etcd kinds need the run's own cluster. scenario.cpp checks every
// verb against the nemesis that plays it.
inline constexpr std::array<fault::Dispatch<FaultKind>, 8> kFaultPlays = {{
    {FaultKind::pause_node, "process", "pause", fault::fixed_node(0)},
    {FaultKind::resume_node, "process", "resume", fault::fixed_node(0)},
    {FaultKind::start_fresh, "process", "start", fault::kNewNode},
    {FaultKind::kill_leader, "etcd", "kill-leader", fault::kNoTarget},
    {FaultKind::restart_killed, "etcd", "restart-member", fault::kNoTarget},
    {FaultKind::stop_follower, "etcd", "stop-follower", fault::kNoTarget},
    {FaultKind::pause_member0, "etcd", "pause-member", fault::fixed_node(0)},
    {FaultKind::resume_member0, "etcd", "resume-member", fault::fixed_node(0)},
}};
static_assert(fault::each_kind_once(kFaultPlays) &&
              kFaultPlays.size() == static_cast<std::size_t>(FaultKind::resume_member0) + 1);

struct FaultEvent {
  double at_ttl = 0;  // × TTL after every node is ready
  FaultKind kind;
  std::string_view why;
};

struct WorkerScenario {
  std::string_view name;
  std::string_view summary;
  double duration_ttl = 0;
  // Its nodes: node 0's endpoints are member 0's alone (a fresh node's never are).
  bool node0_member0_only = false;
  // The check-then-act hook in node 0: a pause of inject_pause_ttl at inject_pause_at_ttl
  // (< 0: none).
  double inject_pause_at_ttl = -1;
  double inject_pause_ttl = 0;
  // Its schedule, in time order.
  std::vector<FaultEvent> events;

  // Whether it plays etcd members (kFaultPlays): then not with --worker-ids static or
  // --etcd-endpoints.
  bool needs_cluster_control() const;
};

std::span<const WorkerScenario> worker_scenarios();
const WorkerScenario* find_worker_scenario(std::string_view name);
std::string_view name_of(FaultKind kind);

// The fault step `e` is as kFaultPlays plays it, at e.at_ttl × `ttl_ns`, recorded with its
// kind's word and its line.
fault::ScheduledStep scheduled(const FaultEvent& e, std::int64_t ttl_ns);

}  // namespace idbench::coord
