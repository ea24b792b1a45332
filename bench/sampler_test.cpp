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

TEST(MeanGapFor, TimesEveryCallOfAShortRun) {
  EXPECT_EQ(mean_gap_for(0), 1u);
  EXPECT_EQ(mean_gap_for(1), 1u);
  EXPECT_EQ(mean_gap_for(kTargetSamples), 1u);
}

TEST(MeanGapFor, KeepsAboutTheTargetSampleCountInLongerRuns) {
  EXPECT_EQ(mean_gap_for(10 * kTargetSamples), 10u);
  EXPECT_EQ(mean_gap_for(40 * kTargetSamples + 7), 40u);
}

TEST(MeanGapFor, NeverTimesFewerThanOneCallInSixtyFour) {
  EXPECT_EQ(mean_gap_for(1'000'000'000), kMaxMeanGap);
}

}  // namespace
}  // namespace idbench::bench
