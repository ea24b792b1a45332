// etcd_test.cpp — the private etcd cluster and the claim transaction, against real members.
#include <gtest/gtest.h>

#include <thread>

#include "coord/etcd_cluster.hpp"
#include "coord/http_client.hpp"
#include "plumbing/child_process.hpp"

namespace idbench::coord {
namespace {

using namespace std::chrono_literals;

bool etcd_installed() { return !plumbing::find_program("etcd").empty(); }

TEST(Base64, RoundTripsEveryLength) {
  EXPECT_EQ(base64_encode("w/0"), "dy8w");
  EXPECT_EQ(base64_encode("x"), "eA==");
  for (std::string s : {"", "a", "ab", "abc", "abcd", "\xff\x01"}) {
    EXPECT_EQ(base64_decode(base64_encode(s)), s);
  }
}

TEST(Endpoints, ParseAndRefuse) {
  const auto e = parse_endpoints("127.0.0.1:2379,127.0.0.1:22");
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[1].port, 22);
  EXPECT_THROW(parse_endpoints("127.0.0.1"), Error);
  EXPECT_THROW(parse_endpoints("127.0.0.1:0"), Error);
  EXPECT_THROW(parse_endpoints(""), Error);
}

TEST(EtcdCluster, MissingBinaryIsNamed) {
  try {
    EtcdCluster c({.etcd_binary = "/nonexistent/etcd"});
    FAIL() << "started without etcd";
  } catch (const EtcdMissing& e) {
    EXPECT_NE(std::string(e.what()).find("etcd-server"), std::string::npos);
  }
}

TEST(EtcdClient, UnreachableIsOneError) {
  EtcdClient c({{"127.0.0.1", 1}}, 200'000'000);
  EXPECT_THROW(c.check_quorum(), EtcdUnavailable);
}

// One cluster for the suite (a start takes ~2 s); the destructive test runs last.
class Cluster : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (etcd_installed()) {
      cluster_ = new EtcdCluster({.members = 3, .heartbeat_ms = 50, .election_ms = 500,
                                  .etcd_binary = ""});
    }
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }
  void SetUp() override {
    if (!cluster_) GTEST_SKIP() << "etcd-server not installed";
  }
  static EtcdCluster* cluster_;
};
EtcdCluster* Cluster::cluster_ = nullptr;

TEST_F(Cluster, ClaimsTheLowestFreeIdAndCountsClaims) {
  EtcdClient c(cluster_->endpoints());
  const auto a = c.grant(5), b = c.grant(5);
  const auto first = c.claim_lowest("t/", a, 3, "a");
  const auto second = c.claim_lowest("t/", b, 3, "b");
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->id, 0u);
  EXPECT_EQ(second->id, 1u);
  EXPECT_EQ(first->counter, 1u);
  c.revoke(a);  // id 0 is free again; its next holder gets the next counter value
  EXPECT_EQ(c.keepalive(a), 0);
  const auto again = c.claim_lowest("t/", b, 3, "b2");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->id, 0u);
  EXPECT_EQ(again->counter, 2u);
  EXPECT_GT(again->revision, first->revision);
  EXPECT_EQ(c.held_ids("t/"), (std::vector<std::uint64_t>{0, 1}));
  EXPECT_FALSE(c.claim_lowest("t/", b, 1, "full"));  // ids 0 and 1 taken: none left in [0, 1]
}

TEST_F(Cluster, LeaseExpiresWithoutKeepAlive) {
  EtcdClient c(cluster_->endpoints());
  const auto lease = c.grant(1);
  ASSERT_TRUE(c.claim_lowest("e/", lease, 9, "x"));
  EXPECT_GT(c.keepalive(lease), 0);
  std::this_thread::sleep_for(2500ms);  // 1 s TTL + etcd's 0.5 s expiry sweep + slack
  EXPECT_EQ(c.keepalive(lease), 0);
  EXPECT_TRUE(c.held_ids("e/").empty());
}

TEST_F(Cluster, ZLastNoQuorumIsUnavailableAndLeaderKillElectsAnother) {
  auto leader = cluster_->leader();
  ASSERT_TRUE(leader);
  cluster_->kill9(*leader);
  EtcdClient c(cluster_->endpoints(), 500'000'000);
  const auto deadline = plumbing::monotonic_ns() + 10'000'000'000;
  std::optional<int> next;
  while (!(next = cluster_->leader()) && plumbing::monotonic_ns() < deadline) {
    std::this_thread::sleep_for(100ms);
  }
  ASSERT_TRUE(next);
  EXPECT_NE(*next, *leader);
  c.check_quorum();
  for (int i = 0; i < cluster_->members(); ++i) {
    if (i != *leader && i != *next) cluster_->pause(i);
  }
  // One of three answers: no quorum. A read the leader confirmed just before may still pass;
  // the leader steps down within its election timeout (0.5 s here) at the latest.
  bool unavailable = false;
  const auto limit = plumbing::monotonic_ns() + 5'000'000'000;
  while (!unavailable && plumbing::monotonic_ns() < limit) {
    try {
      c.check_quorum();
      std::this_thread::sleep_for(100ms);
    } catch (const EtcdUnavailable&) {
      unavailable = true;
    }
  }
  EXPECT_TRUE(unavailable);
}

}  // namespace
}  // namespace idbench::coord
