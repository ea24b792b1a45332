// Chaos runs whose assertions are bands of wall-clock time measured on real processes (down
// time, stall, k-sort bound). They carry the ctest label `wallclock`: their bounds are set to
// hold on a busy 2-core machine (a descheduled driver or node only widens what they measure),
// but a machine loaded far beyond that can still push a figure out of its band.
#include <gtest/gtest.h>

#include "chaos/driver.hpp"
#include "chaos/run_test_support.hpp"

namespace idbench::chaos {
namespace {

using chaos_testing::ChaosRun;

TEST_F(ChaosRun, VmPauseIsDownTimeAndWaitOutlastsTheOvershoot) {
  const RunResult r = run("vm-pause", "cas", "wait", 0.3);
  EXPECT_EQ(r.analysis.duplicates, 0u);
  // Paused 300 ms; the driver's stop and resume land late by a scheduler slice or more on a
  // busy machine, which moves the band either way but never by the pause's length.
  EXPECT_GT(r.analysis.nodes[0].down_ms, 150);
  EXPECT_LT(r.analysis.nodes[0].down_ms, 700);
  EXPECT_GT(r.analysis.max_stall_ms, 40);  // waited out (most of) the 90 ms step back
  EXPECT_TRUE(r.verdict.passed());
}

TEST_F(ChaosRun, SkewWidensTheKsortBound) {
  const RunResult r = run("skew", "cas", "refuse", 0.4);
  // ±20 ms: IDs of the node 40 ms ahead sort after IDs issued up to ~40 ms later. The upper
  // bound is the run's length (600 ms): a node descheduled between next() and its true-time
  // read looks later by as long as it waited, which a busy machine makes hundreds of ms.
  EXPECT_GT(r.analysis.ksort_bound_ms, 30);
  EXPECT_LT(r.analysis.ksort_bound_ms, 600);
  EXPECT_EQ(r.analysis.refusals, 0u);
}

}  // namespace
}  // namespace idbench::chaos
