// Many threads, one generator, the real wall clock: every ID unique, and each thread's IDs in
// increasing order. Runs under ThreadSanitizer too (label "concurrent").
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <latch>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "generators/generator.hpp"
#include "generators/layout.hpp"
#include "property/duplicates.hpp"

namespace idbench::property {
namespace {

// IDs per run, over all threads. At least a million in a normal build; ThreadSanitizer slows
// the hot path by an order of magnitude and more with 8 threads on 2 cores, and what it looks
// for (an unsynchronised access) shows in thousands of IDs, not millions.
// IDBENCH_STRESS_IDS overrides either.
std::size_t ids_per_run() {
  if (const char* env = std::getenv("IDBENCH_STRESS_IDS")) return std::stoull(env);
#if defined(__SANITIZE_THREAD__)
  return 100'000;
#else
  return 1'000'000;
#endif
}

// Runs `threads` threads calling next() on one generator until `total` IDs are issued, then
// checks them. `wait` rather than the default `refuse`, so an NTP slew or step on the test
// machine delays the run instead of failing it.
void stress(std::string_view variant, int threads) {
  SCOPED_TRACE(testing::Message() << variant << " with " << threads << " threads");
  GeneratorOptions opts;
  opts.layout = Layout::parse("twitter");
  opts.policy = Policy::of(PolicyKind::wait);
  opts.node = 1;
  const auto gen = make_generator(variant, opts);

  const std::size_t total = ids_per_run();
  std::vector<std::vector<Id>> issued(static_cast<std::size_t>(threads));
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(threads));
  std::latch start(threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      const auto slot = static_cast<std::size_t>(t);
      const std::size_t count = total / static_cast<std::size_t>(threads) +
                                (slot < total % static_cast<std::size_t>(threads) ? 1 : 0);
      std::vector<Id>& mine = issued[slot];
      mine.reserve(count);
      // All threads start together, so they contend from the first ID.
      start.arrive_and_wait();
      try {
        for (std::size_t i = 0; i < count; ++i) mine.push_back(gen->next());
      } catch (...) {
        errors[slot] = std::current_exception();
      }
    });
  }
  for (auto& thread : pool) thread.join();
  for (const auto& error : errors) {
    if (error) std::rethrow_exception(error);
  }

  std::vector<Id> all;
  all.reserve(total);
  for (const auto& mine : issued) {
    const auto out_of_order = std::adjacent_find(mine.begin(), mine.end(),
                                                 [](const Id& a, const Id& b) { return !(a < b); });
    EXPECT_EQ(out_of_order, mine.end())
        << "a thread's IDs went out of order at index " << (out_of_order - mine.begin());
    all.insert(all.end(), mine.begin(), mine.end());
  }
  ASSERT_EQ(all.size(), total);
  DuplicateFinder finder;
  EXPECT_EQ(finder.add(all), 0u) << "duplicates, e.g. " << finder.describe(gen->width());
}

// 2 threads contend; 8 threads on a 2-core machine also get preempted mid-ID.
constexpr int kThreadCounts[] = {2, 5, 8};

TEST(Stress, MutexIssuesUniqueIdsFromManyThreads) {
  for (const int threads : kThreadCounts) stress("mutex", threads);
}

TEST(Stress, CasIssuesUniqueIdsFromManyThreads) {
  for (const int threads : kThreadCounts) stress("cas", threads);
}

TEST(Stress, ThreadLocalIssuesUniqueIdsFromManyThreads) {
  for (const int threads : kThreadCounts) stress("thread-local", threads);
}

TEST(Stress, UuidV7IssuesUniqueIdsFromManyThreads) {
  for (const int threads : kThreadCounts) stress("uuidv7", threads);
}

}  // namespace
}  // namespace idbench::property
