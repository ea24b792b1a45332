// scenario.hpp — the worker-id faults, as data: what happens to which node or
// etcd member when, in units of the lease TTL (so the same shape runs with a 1 s or 2 s TTL).
//
//   const WorkerScenario* s = find_worker_scenario("pause-beyond-lease");
//   for (const auto& e : s->events) ... e.at_ttl * ttl_ms ...
//
// Node 0 is the victim of every node fault. A "fresh" node is started late, as a fleet would
// start a replacement: it claims the lowest free id, which is the victim's once its lease is
// gone. Thread safety: immutable data.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

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

struct FaultEvent {
  double at_ttl = 0;  // × TTL after every node is ready
  FaultKind kind;
  std::string_view why;
};

struct WorkerScenario {
  std::string_view name;
  std::string_view summary;
  double duration_ttl = 0;
  std::vector<FaultEvent> events;
  bool node0_member0_only = false;     // node 0's endpoints are member 0's alone
  double inject_pause_at_ttl = -1;     // the check-then-act hook in node 0; < 0: none
  double inject_pause_ttl = 0;
  bool needs_cluster_control = true;   // plays etcd members (not with --etcd-endpoints)
};

std::span<const WorkerScenario> worker_scenarios();
const WorkerScenario* find_worker_scenario(std::string_view name);
std::string_view name_of(FaultKind kind);

}  // namespace idbench::coord
