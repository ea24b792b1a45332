// analysis_test.cpp — the worker-id analysis on planted logs: a duplicate is caught, a zombie's
// IDs are counted, stalls and gaps are measured, churn and id space are counted.
#include "coord/analysis.hpp"

#include <gtest/gtest.h>

#include "coord/judge.hpp"

namespace idbench::coord {
namespace {

constexpr std::int64_t kMs = 1'000'000;

NodeLog issuing(int node, std::uint64_t first_id, std::int64_t from_ms, std::int64_t to_ms) {
  NodeLog l;
  l.node = node;
  for (std::int64_t t = from_ms; t < to_ms; ++t) {
    l.ids.push_back({.lo = first_id + static_cast<std::uint64_t>(t - from_ms), .mono_ns = t * kMs});
  }
  return l;
}

TEST(WorkerAnalysis, PlantedDuplicateIsCaught) {
  NodeLog a = issuing(0, 1000, 0, 100), b = issuing(1, 5000, 0, 100);
  a.claims.push_back({0, 0, 1, 10});
  b.claims.push_back({0, 1, 1, 11});
  EXPECT_EQ(analyse({a, b}, 100 * kMs).duplicates, 0);
  b.ids[50].lo = a.ids[70].lo;  // planted
  const auto r = analyse({a, b}, 100 * kMs);
  EXPECT_EQ(r.duplicates, 1);
  ASSERT_EQ(r.samples.size(), 1u);
  EXPECT_EQ(r.samples[0].id, a.ids[70].lo);
  EXPECT_NE(r.samples[0].node_a, r.samples[0].node_b);
}

TEST(WorkerAnalysis, ZombieIdsStallsGapsAndChurn) {
  // Node 0 holds worker 0 from 0; node 1 claims worker 0 at 50 ms: node 0's IDs from 50 ms
  // on are a zombie's (50 of them). Node 2 stalls 20..60 ms and re-claims worker 3.
  NodeLog z = issuing(0, 0, 0, 100), fresh = issuing(1, 10'000, 50, 100);
  z.claims.push_back({0, 0, 1, 10});
  fresh.claims.push_back({50 * kMs, 0, 2, 20});
  NodeLog s = issuing(2, 20'000, 0, 20);
  const NodeLog later = issuing(2, 30'000, 60, 100);
  s.ids.insert(s.ids.end(), later.ids.begin(), later.ids.end());
  s.claims = {{0, 2, 1, 12}, {60 * kMs, 3, 1, 30}};
  s.stalls = {{20 * kMs, 60 * kMs}};
  const auto r = analyse({z, fresh, s}, 100 * kMs);
  EXPECT_EQ(r.nodes[0].zombie_ids, 50);
  EXPECT_EQ(r.nodes[1].zombie_ids, 0);
  EXPECT_EQ(r.nodes[2].claims, 2);
  EXPECT_EQ(r.nodes[2].stalled_ns, 40 * kMs);
  ASSERT_EQ(r.nodes[2].gaps.size(), 1u);  // 19 ms .. 60 ms
  EXPECT_EQ(r.nodes[2].unavailable_ns, 41 * kMs);
  EXPECT_EQ(r.workers_claimed, 3);        // 0, 2, 3
  EXPECT_EQ(r.worker_space_used, 4u);
  EXPECT_EQ(r.holdings.size(), 4u);
}

// The verdict: any ID issued twice is DUPLICATES and fails; zombie IDs alone are a finding.
TEST(WorkerJudge, ADuplicateFailsAndZombieIdsAreAFinding) {
  NodeLog a = issuing(0, 1000, 0, 100), b = issuing(1, 5000, 0, 100);
  a.claims.push_back({0, 0, 1, 10});
  b.claims.push_back({0, 1, 1, 11});
  const fault::Verdict kept = judge(analyse({a, b}, 100 * kMs));
  EXPECT_TRUE(kept.passed());
  EXPECT_EQ(fault::name_of(kept.outcome), "kept");
  EXPECT_EQ(kept.evidence, "no ID issued twice among 200 IDs from 2 nodes");
  EXPECT_TRUE(kept.findings.empty());

  b.ids[50].lo = a.ids[70].lo;  // planted
  const fault::Verdict dup = judge(analyse({a, b}, 100 * kMs));
  EXPECT_FALSE(dup.passed());
  EXPECT_EQ(fault::name_of(dup.outcome), "DUPLICATES");
  EXPECT_EQ(dup.evidence, "duplicates issued: 1 among 200 IDs from 2 nodes");

  NodeLog z = issuing(0, 0, 0, 100), fresh = issuing(1, 10'000, 50, 100);
  z.claims.push_back({0, 0, 1, 10});
  fresh.claims.push_back({50 * kMs, 0, 2, 20});
  const fault::Verdict zombie = judge(analyse({z, fresh}, 100 * kMs));
  EXPECT_TRUE(zombie.passed());
  ASSERT_EQ(zombie.findings.size(), 1u);
  EXPECT_EQ(zombie.findings[0],
            "node 0 issued 50 IDs under a worker id another node had claimed after it");
}

// A node that issued nothing gives no evidence: 0 duplicates among its 0 IDs proves nothing
// about it, and such a run was "kept".
TEST(WorkerJudge, ANodeThatIssuedNothingIsNoEvidenceNeverKept) {
  NodeLog a = issuing(0, 1000, 0, 100), silent;
  silent.node = 1;
  a.claims.push_back({0, 0, 1, 10});
  const fault::Verdict v = judge(analyse({a, silent}, 100 * kMs));
  EXPECT_FALSE(v.passed());
  EXPECT_EQ(v.outcome, fault::Outcome::no_evidence);
  EXPECT_EQ(v.evidence, "node 1 issued no ID");

  NodeLog none;
  const fault::Verdict empty = judge(analyse({none}, 100 * kMs));
  EXPECT_EQ(empty.outcome, fault::Outcome::no_evidence);

  silent.ids.push_back(a.ids[3]);  // its one ID, a duplicate: duplicates come first
  EXPECT_EQ(judge(analyse({a, silent}, 100 * kMs)).outcome, fault::Outcome::duplicates);
}

}  // namespace
}  // namespace idbench::coord
