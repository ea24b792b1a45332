// The harness's floors: ns per ID, the cost above a floor, and the floor ledger's median over
// the reported runs only.
#include "bench/floors.hpp"

#include <gtest/gtest.h>

namespace idbench::bench {
namespace {

TEST(NsPerId, IsThreadsTimesOneSecondOverTheWallRate) {
  EXPECT_DOUBLE_EQ(*ns_per_id(1, 25e6), 40.0);
  // Two threads sharing 50 M IDs/s of wall clock each spend 40 ns of their own time per ID.
  EXPECT_DOUBLE_EQ(*ns_per_id(2, 50e6), 40.0);
  EXPECT_DOUBLE_EQ(*ns_per_id(8, 100e6), 80.0);
}

TEST(NsPerId, IsUnknownWithoutARate) {
  EXPECT_FALSE(ns_per_id(1, 0).has_value());
  EXPECT_FALSE(ns_per_id(0, 1e6).has_value());
}

TEST(AboveFloor, SubtractsTheFloor) {
  EXPECT_DOUBLE_EQ(*above_floor(64.0, 40.0), 24.0);
  // Noise can put a run under its floor: the difference is shown as it is, not clamped.
  EXPECT_DOUBLE_EQ(*above_floor(39.0, 40.0), -1.0);
}

TEST(AboveFloor, IsUnknownWhenTheFloorDidNotRun) {
  EXPECT_FALSE(above_floor(64.0, std::nullopt).has_value());
  EXPECT_FALSE(above_floor(std::nullopt, 40.0).has_value());
}

TEST(FloorLedger, IsEmptyBeforeAnyRun) { EXPECT_FALSE(FloorLedger{}.median().has_value()); }

TEST(FloorLedger, LeavesOutTheProbeRunsBeforeTheReportedOne) {
  FloorLedger f;
  f.record(1, 900.0);  // Google Benchmark's probes: few iterations, noisy
  f.record(100, 300.0);
  f.record(10000, 41.0);  // the reported first repetition
  EXPECT_DOUBLE_EQ(*f.median(), 41.0);
}

TEST(FloorLedger, TakesTheMedianOverTheRepetitionsSoFar) {
  FloorLedger f;
  f.record(10, 500.0);
  for (double ns : {42.0, 40.0, 60.0}) f.record(10000, ns);
  EXPECT_DOUBLE_EQ(*f.median(), 42.0);
  f.record(10000, 41.0);  // an even count: the mean of the middle two
  EXPECT_DOUBLE_EQ(*f.median(), 41.5);
  f.record(10, 1.0);  // a shorter run after the reported ones is not a repetition
  EXPECT_DOUBLE_EQ(*f.median(), 41.5);
}

}  // namespace
}  // namespace idbench::bench
