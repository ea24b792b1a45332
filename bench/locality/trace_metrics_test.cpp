// The trace-derived figures: distinct leaves per window and the LRU pool simulation.
#include "bench/locality/trace_metrics.hpp"

#include <gtest/gtest.h>

namespace idbench::locality {
namespace {

LeafTrace trace_of(const std::vector<std::uint32_t>& pages) {
  LeafTrace t;
  for (auto p : pages) t.entries.push_back(p | LeafTrace::kFirst);
  return t;
}

TEST(TraceMetrics, OnePagePerWindowCountsOne) {
  std::vector<std::uint32_t> pages(3000, 0);
  EXPECT_DOUBLE_EQ(distinct_leaves_per_1k(trace_of(pages), 1), 1.0);
}

TEST(TraceMetrics, EveryInsertOnItsOwnPageCountsAThousand) {
  std::vector<std::uint32_t> pages;
  for (std::uint32_t i = 0; i < 2000; ++i) pages.push_back(i);
  EXPECT_DOUBLE_EQ(distinct_leaves_per_1k(trace_of(pages), 2000), 1000.0);
}

TEST(TraceMetrics, LruHitsWhatFitsAndMissesWhatCycles) {
  // Cycling over 3 pages with a pool of 2 misses every time (LRU's worst case); a pool of 3
  // misses only the first touch of each.
  std::vector<std::uint32_t> pages;
  for (int i = 0; i < 30; ++i) pages.push_back(static_cast<std::uint32_t>(i % 3));
  EXPECT_EQ(simulate_lru(trace_of(pages), 3, 2).misses, 30u);
  EXPECT_EQ(simulate_lru(trace_of(pages), 3, 3).misses, 3u);
}

TEST(TraceMetrics, CreatedPagesAreNotReads) {
  LeafTrace t;
  t.entries = {0 | LeafTrace::kFirst, 1 | LeafTrace::kCreated, 1 | LeafTrace::kFirst};
  const auto s = simulate_lru(t, 2, 2);
  EXPECT_EQ(s.reads, 2u);
  EXPECT_EQ(s.misses, 1u);
}

}  // namespace
}  // namespace idbench::locality
