// scenario.cpp — the worker-id fault scenarios, declared (scenario.hpp): each one's nodes and
// schedule; an event as the fault step its kind's nemesis plays.
#include "coord/scenario.hpp"

#include <algorithm>
#include <string>

#include "coord/etcd_nemesis.hpp"

namespace idbench::coord {

// The verbs kFaultPlays names are the ones its nemeses play.
static_assert(fault::playable(kFaultPlays, std::array{fault::ProcessNemesis::kRepertoire,
                                                      EtcdNemesis::kRepertoire}));

std::span<const WorkerScenario> worker_scenarios() {
  static const std::vector<WorkerScenario> all = {
      {.name = "pause-beyond-lease",
       .summary = "node 0 is SIGSTOPped for 2.75 TTL; a fresh node claims its id; node 0 wakes",
       .duration_ttl = 4.75,
       .events = {{0.5, FaultKind::pause_node, "SIGSTOP node 0 (a GC or VM pause)"},
                  {2.5, FaultKind::start_fresh, "a fresh node claims the lowest free id"},
                  {3.25, FaultKind::resume_node, "SIGCONT node 0"}}},
      {.name = "check-then-act",
       .summary = "node 0 pauses 2.75 TTL exactly between its deadline check and its issue (test "
                  "hook)",
       .duration_ttl = 4.75,
       .inject_pause_at_ttl = 0.5,
       .inject_pause_ttl = 2.75,
       .events = {{2.5, FaultKind::start_fresh, "a fresh node claims the lowest free id"}}},
      {.name = "leader-kill",
       .summary = "the etcd leader is SIGKILLed, restarted 1.75 TTL later",
       .duration_ttl = 4.0,
       .events = {{0.75, FaultKind::kill_leader, "SIGKILL the etcd leader"},
                  {2.5, FaultKind::restart_killed, "restart the killed member on its data"}}},
      {.name = "member-stop",
       .summary = "one etcd follower is stopped (quorum kept), started again 1.75 TTL later",
       .duration_ttl = 4.0,
       .events = {{0.75, FaultKind::stop_follower, "SIGTERM one etcd follower"},
                  {2.5, FaultKind::restart_killed, "start it again on its data"}}},
      {.name = "cut-off",
       .summary = "node 0's only etcd member is SIGSTOPped for 2.75 TTL (quorum kept without "
                  "it); a fresh node claims node 0's id",
       .duration_ttl = 4.75,
       .node0_member0_only = true,
       .events = {{0.5, FaultKind::pause_member0, "SIGSTOP etcd member 0, node 0's only member"},
                  {2.5, FaultKind::start_fresh, "a fresh node claims the lowest free id"},
                  {3.25, FaultKind::resume_member0, "SIGCONT etcd member 0"}}},
  };
  return all;
}

bool WorkerScenario::needs_cluster_control() const {
  return std::any_of(events.begin(), events.end(), [](const FaultEvent& e) {
    return fault::dispatch_of(kFaultPlays, e.kind).nemesis == EtcdNemesis::kRepertoire.nemesis;
  });
}

const WorkerScenario* find_worker_scenario(std::string_view name) {
  for (const auto& s : worker_scenarios()) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

std::string_view name_of(FaultKind kind) { return plumbing::name_in(kFaultKindNames, kind); }

fault::ScheduledStep scheduled(const FaultEvent& e, std::int64_t ttl_ns) {
  return fault::schedule_step(kFaultPlays, e.kind, static_cast<std::int64_t>(e.at_ttl * ttl_ns),
                              {.kind = std::string(name_of(e.kind)), .what = std::string(e.why)});
}

}  // namespace idbench::coord
