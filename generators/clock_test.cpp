// clock_test — the Clock seam: floor division, the manual clock's two readings, the wall clock.
#include "generators/clock.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace idbench {
namespace {

TEST(Clock, FloorDivRoundsDownOnBothSidesOfZero) {
  EXPECT_EQ(Clock::floor_div(7, 2), 3);
  EXPECT_EQ(Clock::floor_div(-7, 2), -4);  // a time before 1970 must not round towards it
  EXPECT_EQ(Clock::floor_div(-1, 1'000'000), -1);
  EXPECT_EQ(Clock::floor_div(-1'000'000, 1'000'000), -1);
  EXPECT_EQ(Clock::floor_div(0, 5), 0);
  EXPECT_EQ(Clock::floor_div(std::numeric_limits<std::int64_t>::min(), 1000),
            std::numeric_limits<std::int64_t>::min() / 1000 - 1);
}

TEST(ManualClock, AdvanceMovesBothReadingsAStepMovesOnlyTheWall) {
  ManualClock clock(5'000'000, 250);
  EXPECT_EQ(clock.wall_ms(), 5);
  EXPECT_EQ(clock.steady_ns(), 0);
  clock.advance_ms(2);
  EXPECT_EQ(clock.wall_ns(), 7'000'000);
  EXPECT_EQ(clock.steady_ns(), 2'000'000);
  clock.step_wall_ms(-3);  // an NTP step: steady time does not go back
  EXPECT_EQ(clock.wall_ns(), 4'000'000);
  EXPECT_EQ(clock.steady_ns(), 2'000'000);
  clock.relax();  // a spinning generator lets one relax step pass
  EXPECT_EQ(clock.wall_ns(), 4'000'250);
  EXPECT_EQ(clock.steady_ns(), 2'000'250);
  clock.set_wall_ms(-1);
  EXPECT_EQ(clock.wall_ms(), -1);
  clock.set_relax_step_ns(0);
  clock.relax();
  EXPECT_EQ(clock.steady_ns(), 2'000'250);
}

TEST(WallClock, ReadsNowAndItsSteadyClockNeverGoesBack) {
  const auto clock = wall_clock();
  EXPECT_EQ(clock, wall_clock());                  // one process-wide instance
  EXPECT_GT(clock->wall_ms(), 1'700'000'000'000);  // after 2023-11
  const std::int64_t a = clock->steady_ns();
  clock->relax();
  EXPECT_GE(clock->steady_ns(), a);
}

}  // namespace
}  // namespace idbench
