// Behaviour of the log-linear latency histogram: exact small values, bounded relative error,
// percentile ranks, the exact maximum, and merging.
#include "bench/histogram.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <random>

namespace idbench::bench {
namespace {

using H = LatencyHistogram;

// A histogram is 15 KiB: keep them off the test's stack.
std::unique_ptr<H> make() { return std::make_unique<H>(); }

TEST(LatencyHistogram, BucketsTileTheWholeRangeWithoutGapsOrOverlap) {
  EXPECT_EQ(H::lowest_in_bucket(0), 0u);
  for (std::size_t i = 0; i + 1 < H::kBucketCount; ++i) {
    ASSERT_EQ(H::highest_in_bucket(i) + 1, H::lowest_in_bucket(i + 1)) << "bucket " << i;
    ASSERT_EQ(H::index_of(H::lowest_in_bucket(i)), i);
    ASSERT_EQ(H::index_of(H::highest_in_bucket(i)), i);
  }
  EXPECT_EQ(H::highest_in_bucket(H::kBucketCount - 1), std::numeric_limits<std::uint64_t>::max());
}

TEST(LatencyHistogram, ValuesBelowTheSubBucketCountAreExact) {
  for (std::uint64_t v = 0; v < H::kSubBuckets * 2; ++v) {
    EXPECT_EQ(H::lowest_in_bucket(H::index_of(v)), v);
    EXPECT_EQ(H::highest_in_bucket(H::index_of(v)), v);
  }
}

TEST(LatencyHistogram, AnyValueIsKnownWithinOneThirtySecond) {
  std::mt19937_64 rng(42);
  for (int i = 0; i < 100'000; ++i) {
    const std::uint64_t v = rng() >> (rng() % 64);
    const std::size_t b = H::index_of(v);
    ASSERT_LE(H::lowest_in_bucket(b), v);
    ASSERT_GE(H::highest_in_bucket(b), v);
    ASSERT_LE(H::highest_in_bucket(b) - H::lowest_in_bucket(b), v / 32) << v;
  }
}

TEST(LatencyHistogram, EmptyHistogramReportsZero) {
  auto h = make();
  EXPECT_EQ(h->count(), 0u);
  EXPECT_EQ(h->value_at_quantile(0.99), 0u);
  EXPECT_EQ(h->max(), 0u);
}

TEST(LatencyHistogram, PercentilesOfOneToAThousandAreWithinBucketResolution) {
  auto h = make();
  for (std::uint64_t v = 1; v <= 1000; ++v) h->record(v);
  EXPECT_EQ(h->count(), 1000u);
  EXPECT_EQ(h->max(), 1000u);
  // The value at q is the top of the bucket holding the ceil(q·n)-th value: never below it,
  // at most 1/32 above it.
  const auto expect_near = [&](double q, std::uint64_t exact) {
    const std::uint64_t got = h->value_at_quantile(q);
    EXPECT_GE(got, exact) << "q=" << q;
    EXPECT_LE(got, exact + exact / 32) << "q=" << q;
  };
  expect_near(0.50, 500);
  expect_near(0.99, 990);
  expect_near(0.999, 999);
  EXPECT_EQ(h->value_at_quantile(1.0), 1000u);
  EXPECT_EQ(h->value_at_quantile(0.0), 1u);
}

TEST(LatencyHistogram, RankOfAQuantileIsNotPushedUpByRounding) {
  // 0.99 × 100 is 98.999… in binary floating point; the 99th value is still the answer.
  auto h = make();
  for (std::uint64_t v = 1; v <= 100; ++v) h->record(v);
  EXPECT_EQ(h->value_at_quantile(0.99), 99u);
  EXPECT_EQ(h->value_at_quantile(0.5), 50u);
}

TEST(LatencyHistogram, OneSlowCallInAThousandIsTheMaxNotTheP999) {
  auto h = make();
  for (int i = 0; i < 999; ++i) h->record(20);
  h->record(1'000'000);
  EXPECT_EQ(h->value_at_quantile(0.99), 20u);
  EXPECT_EQ(h->value_at_quantile(0.999), 20u);  // rank 999 of 1000
  EXPECT_EQ(h->max(), 1'000'000u);
}

TEST(LatencyHistogram, TwoSlowCallsInAThousandAreTheP999AtTheirExactValue) {
  auto h = make();
  for (int i = 0; i < 998; ++i) h->record(20);
  h->record(1'000'000);
  h->record(1'000'000);
  // The bucket's top is above 1,000,000; the answer is clamped to the exact maximum.
  EXPECT_EQ(h->value_at_quantile(0.999), 1'000'000u);
}

TEST(LatencyHistogram, MergingEqualsRecordingEverythingInOne) {
  auto a = make();
  auto b = make();
  auto all = make();
  std::mt19937_64 rng(7);
  for (int i = 0; i < 10'000; ++i) {
    const std::uint64_t v = rng() % 100'000;
    (i % 3 == 0 ? *a : *b).record(v);
    all->record(v);
  }
  a->merge(*b);
  EXPECT_EQ(a->count(), all->count());
  EXPECT_EQ(a->max(), all->max());
  for (double q : {0.0, 0.1, 0.5, 0.9, 0.99, 0.999, 1.0}) {
    EXPECT_EQ(a->value_at_quantile(q), all->value_at_quantile(q)) << q;
  }
}

}  // namespace
}  // namespace idbench::bench
