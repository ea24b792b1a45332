// Behaviour of the call sampler: its mean gap, its bounds, and the rule that sizes it.
#include "bench/sampler.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace idbench::bench {
namespace {

TEST(CallSampler, AMeanGapOfOneTimesEveryCall) {
  CallSampler s(1, 99);
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(s.take());
}

TEST(CallSampler, TimesOneCallInMeanGapOnAverageWithGapsWithinBounds) {
  constexpr std::uint32_t kGap = 16;
  CallSampler s(kGap, 12345);
  const int calls = 1'600'000;
  int taken = 0;
  int since_last = 0;
  int longest = 0;
  for (int i = 0; i < calls; ++i) {
    ++since_last;
    if (s.take()) {
      ++taken;
      longest = std::max(longest, since_last);
      since_last = 0;
    }
  }
  EXPECT_NEAR(static_cast<double>(calls) / taken, kGap, 0.2);
  EXPECT_LE(longest, static_cast<int>(2 * kGap - 1));
}

TEST(CallSampler, DoesNotLockOntoAPeriodicPattern) {
  // One call in 4,096 is slow (the one that waited for the next ms). A fixed stride of 16
  // would time all of them or none; the sampler times about 1/16 of them.
  CallSampler s(16, 7);
  int slow_timed = 0;
  const int periods = 5000;
  for (int i = 0; i < periods * 4096; ++i) {
    const bool timed = s.take();
    if (i % 4096 == 0 && timed) ++slow_timed;
  }
  EXPECT_NEAR(static_cast<double>(slow_timed) / periods, 1.0 / 16, 0.015);
}

TEST(MeanGapFor, KeepsTheTimerNearFivePercentOfTheLoop) {
  EXPECT_EQ(mean_gap_for(50, 1000), 1u);  // slow calls: time every one
  EXPECT_EQ(mean_gap_for(50, 100), 10u);  // 50 ns per 10 calls of 100 ns = 5 %
  EXPECT_EQ(mean_gap_for(50, 20), 50u);
  EXPECT_EQ(mean_gap_for(50, 1), kMaxMeanGap);  // bounded, so the tail still has samples
}

TEST(MeanGapFor, WithNothingMeasuredYetUsesTheFirstRunGap) {
  EXPECT_EQ(mean_gap_for(50, 0), kFirstRunMeanGap);
  EXPECT_EQ(mean_gap_for(0, 30), kFirstRunMeanGap);
}

}  // namespace
}  // namespace idbench::bench
