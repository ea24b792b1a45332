// etcd_nemesis.hpp — the etcd member faults of the worker-id scenarios as a fault::Nemesis:
// the leader killed with -9, a follower stopped, the member that went down started again on
// its data, a member paused and resumed.
//
//   EtcdNemesis etcd(cluster);
//   etcd.invoke({.op = "kill-leader", .kind = "kill-leader", .what = "etcd leader killed"}, t);
//       // records "etcd leader killed (member m2)": the member it chose
//   etcd.invoke({.op = "restart-member", .kind = "restart-member", .what = "..."}, t);
//   etcd.teardown(t);                    // every member resumed
//
// Verbs: "kill-leader" (the member that leads now, SIGKILL; fails with Error when an election
// leaves none), "stop-follower" (a member that does not lead, SIGTERM), "restart-member" (the
// one killed or stopped last, if any), "pause-member" and "resume-member" (SIGSTOP, SIGCONT of
// member FaultStep::node). Each step is recorded once, when it is done, for kNoNode: a member
// is not one of the run's nodes.
//
// Thread safety: thread-compatible; the cluster is the driver's, on its thread.
#pragma once

#include <array>
#include <optional>
#include <string_view>

#include "coord/etcd_cluster.hpp"
#include "fault/nemesis.hpp"
#include "fault/schedule.hpp"

namespace idbench::coord {

class EtcdNemesis : public fault::Nemesis {
 public:
  // What a schedule may ask of it (fault/schedule.hpp): the verbs above.
  static constexpr std::array<std::string_view, 5> kVerbs = {
      "kill-leader", "stop-follower", "restart-member", "pause-member", "resume-member"};
  static constexpr fault::Repertoire kRepertoire{"etcd", kVerbs};

  explicit EtcdNemesis(EtcdCluster& cluster) : cluster_(cluster) {}
  std::string_view kind() const override { return kRepertoire.nemesis; }
  void invoke(const fault::FaultStep& step, fault::Timeline& t) override;
  // Resumes every member: a paused one would hold the nodes' lease revocations at their stop.
  void teardown(fault::Timeline& t) override;

  // The member killed or stopped last; nullopt before any.
  std::optional<int> down_member() const { return down_member_; }

 private:
  EtcdCluster& cluster_;
  std::optional<int> down_member_;
};

}  // namespace idbench::coord
