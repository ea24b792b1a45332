// etcd_nemesis_test.cpp — the etcd nemesis on a real 3-member cluster (skipped without
// etcd-server): a paused member is stopped (the kernel says 'T') and resumed, the leader it
// kills is named in its record and started again, each step is one record for no node, teardown
// resumes what is still paused, and a verb it does not play fails.
#include "coord/etcd_nemesis.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "fault/testing/shell_nodes.hpp"
#include "plumbing/child_process.hpp"

namespace idbench::coord {
namespace {

using fault::fault_testing::runs;
using fault::fault_testing::stops;

class EtcdNemesisTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (plumbing::find_program("etcd").empty()) GTEST_SKIP() << "etcd-server not installed";
    cluster_ = std::make_unique<EtcdCluster>(EtcdClusterOptions{
        .members = 3, .heartbeat_ms = 50, .election_ms = 500, .etcd_binary = ""});
  }
  std::unique_ptr<EtcdCluster> cluster_;
  fault::Timeline t_{"test", "etcd", nullptr};
};

TEST_F(EtcdNemesisTest, APausedMemberIsStoppedAndResumedAndTeardownResumesIt) {
  EtcdNemesis etcd(*cluster_);
  EXPECT_EQ(etcd.kind(), "etcd");
  const fault::Instant before = fault::Instant::now();
  etcd.invoke({.op = "pause-member", .node = 0, .kind = "pause-member", .what = "m0 paused"}, t_);
  const fault::Instant after = fault::Instant::now();
  EXPECT_TRUE(stops(cluster_->pid(0)));
  ASSERT_EQ(t_.history().size(), 1u);
  const fault::FaultRecord& r = t_.history()[0];
  EXPECT_EQ(r.node, fault::kNoNode);  // a member is not one of the run's nodes
  EXPECT_EQ(r.kind, "pause-member");
  EXPECT_EQ(r.what, "m0 paused");
  EXPECT_GE(r.mono_ns, before.mono_ns);
  EXPECT_LE(r.mono_ns, after.mono_ns);
  EXPECT_GE(r.true_ns, before.true_ns);
  EXPECT_LE(r.true_ns, after.true_ns);
  etcd.invoke({.op = "resume-member", .node = 0, .kind = "resume-member", .what = "m0 resumed"},
              t_);
  EXPECT_TRUE(runs(cluster_->pid(0)));
  etcd.invoke({.op = "pause-member", .node = 1, .kind = "pause-member", .what = "m1 paused"}, t_);
  EXPECT_TRUE(stops(cluster_->pid(1)));
  etcd.teardown(t_);
  EXPECT_TRUE(runs(cluster_->pid(1)));
  EXPECT_EQ(t_.history().size(), 3u);  // teardown records nothing
}

TEST_F(EtcdNemesisTest, TheKilledLeaderIsNamedAndStartedAgain) {
  EtcdNemesis etcd(*cluster_);
  const auto leader = cluster_->leader();
  ASSERT_TRUE(leader);
  etcd.invoke({.op = "kill-leader", .kind = "kill-leader", .what = "leader killed"}, t_);
  ASSERT_TRUE(etcd.down_member());
  EXPECT_EQ(*etcd.down_member(), *leader);
  EXPECT_FALSE(cluster_->running(*leader));
  ASSERT_EQ(t_.history().size(), 1u);
  EXPECT_EQ(t_.history()[0].what, "leader killed (member m" + std::to_string(*leader) + ")");
  etcd.invoke({.op = "restart-member", .kind = "restart-member", .what = "member back"}, t_);
  EXPECT_TRUE(cluster_->running(*leader));
  ASSERT_EQ(t_.history().size(), 2u);
  EXPECT_EQ(t_.history()[1].what, "member back");
  EXPECT_LE(t_.history()[0].mono_ns, t_.history()[1].mono_ns);
}

TEST_F(EtcdNemesisTest, AVerbItDoesNotPlayFailsAndRecordsNothing) {
  EtcdNemesis etcd(*cluster_);
  EXPECT_THROW(etcd.invoke({.op = "pause", .node = 0, .kind = "x", .what = "x"}, t_),
               std::logic_error);
  EXPECT_TRUE(t_.history().empty());
}

}  // namespace
}  // namespace idbench::coord
