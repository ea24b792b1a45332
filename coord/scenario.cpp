// scenario.cpp — the worker-id fault scenarios' timelines.
#include "coord/scenario.hpp"

namespace idbench::coord {

std::span<const WorkerScenario> worker_scenarios() {
  static const std::vector<WorkerScenario> all = {
      {"pause-beyond-lease",
       "node 0 is SIGSTOPped for 2.75 TTL; a fresh node claims its id; node 0 wakes",
       4.75,
       {{0.5, FaultKind::pause_node, "SIGSTOP node 0 (a GC or VM pause)"},
        {2.5, FaultKind::start_fresh, "a fresh node claims the lowest free id"},
        {3.25, FaultKind::resume_node, "SIGCONT node 0"}},
       false, -1, 0, false},
      {"check-then-act",
       "node 0 pauses 2.75 TTL exactly between its deadline check and its issue (test hook)",
       4.75,
       {{2.5, FaultKind::start_fresh, "a fresh node claims the lowest free id"}},
       false, 0.5, 2.75, false},
      {"leader-kill",
       "the etcd leader is SIGKILLed, restarted 1.75 TTL later",
       4.0,
       {{0.75, FaultKind::kill_leader, "SIGKILL the etcd leader"},
        {2.5, FaultKind::restart_killed, "restart the killed member on its data"}},
       false, -1, 0, true},
      {"member-stop",
       "one etcd follower is stopped (quorum kept), started again 1.75 TTL later",
       4.0,
       {{0.75, FaultKind::stop_follower, "SIGTERM one etcd follower"},
        {2.5, FaultKind::restart_killed, "start it again on its data"}},
       false, -1, 0, true},
      {"cut-off",
       "node 0's only etcd member is SIGSTOPped for 2.75 TTL (quorum kept without it); a fresh "
       "node claims node 0's id",
       4.75,
       {{0.5, FaultKind::pause_member0, "SIGSTOP etcd member 0, node 0's only member"},
        {2.5, FaultKind::start_fresh, "a fresh node claims the lowest free id"},
        {3.25, FaultKind::resume_member0, "SIGCONT etcd member 0"}},
       true, -1, 0, true},
  };
  return all;
}

const WorkerScenario* find_worker_scenario(std::string_view name) {
  for (const auto& s : worker_scenarios()) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

std::string_view name_of(FaultKind kind) { return plumbing::name_in(kFaultKindNames, kind); }

}  // namespace idbench::coord
