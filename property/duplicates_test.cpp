// The duplicate finder every property relies on is itself shown to fail: it reports planted
// duplicates, exactly as many as were planted, and it reports the ones the `unsafe` policy (the
// planted defect) issues after a step back of the clock.
#include "property/duplicates.hpp"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <set>
#include <string_view>
#include <vector>

#include "generators/clock.hpp"
#include "generators/generator.hpp"
#include "generators/layout.hpp"

namespace idbench::property {
namespace {

TEST(DuplicateFinder, ReportsNothingForDistinctIds) {
  DuplicateFinder finder;
  EXPECT_EQ(finder.add(std::vector<Id>{Id::from_u64(3), Id::from_u64(1), Id{1, 0}}), 0u);
  EXPECT_EQ(finder.add(std::vector<Id>{Id::from_u64(2), Id{0, 4}}), 0u);
  EXPECT_EQ(finder.seen(), 5u);
  EXPECT_EQ(finder.duplicates(), 0u);
}

TEST(DuplicateFinder, ReportsAPlantedDuplicateWithinABatch) {
  DuplicateFinder finder;
  EXPECT_EQ(finder.add(std::vector<Id>{Id::from_u64(7), Id::from_u64(9), Id::from_u64(7)}), 1u);
  ASSERT_EQ(finder.examples().size(), 1u);
  EXPECT_EQ(finder.examples()[0], Id::from_u64(7));
  EXPECT_EQ(finder.describe(IdWidth::bits64), "7");
}

TEST(DuplicateFinder, ReportsAPlantedDuplicateAcrossBatches) {
  DuplicateFinder finder;
  EXPECT_EQ(finder.add(std::vector<Id>{Id{5, 1}, Id{5, 2}}), 0u);
  EXPECT_EQ(finder.add(std::vector<Id>{Id{5, 3}}), 0u);
  EXPECT_EQ(finder.add(std::vector<Id>{Id{6, 1}, Id{5, 2}}), 1u);
  EXPECT_EQ(finder.examples(), std::vector<Id>{(Id{5, 2})});
}

TEST(DuplicateFinder, CountsAValueIssuedThreeTimesAsTwoDuplicates) {
  DuplicateFinder finder;
  EXPECT_EQ(finder.add(std::vector<Id>{Id::from_u64(4)}), 0u);
  EXPECT_EQ(finder.add(std::vector<Id>{Id::from_u64(4), Id::from_u64(4)}), 2u);
  EXPECT_EQ(finder.duplicates(), 2u);
}

// Distinct IDs with k copies planted at random positions, handed over in random batches: the
// finder reports exactly k, whatever the split.
RC_GTEST_PROP(DuplicateFinderProperty, CountsExactlyThePlantedDuplicates, ()) {
  const auto values =
      *rc::gen::container<std::set<std::uint64_t>>(rc::gen::arbitrary<std::uint64_t>());
  std::vector<Id> ids;
  for (const std::uint64_t v : values) ids.push_back(Id{v % 3, v});  // hi matters too
  std::size_t planted = 0;
  if (!ids.empty()) {
    planted = *rc::gen::inRange<std::size_t>(0, 20);
    for (std::size_t i = 0; i < planted; ++i) {
      ids.push_back(ids[*rc::gen::inRange<std::size_t>(0, ids.size())]);
    }
  }
  std::shuffle(ids.begin(), ids.end(), std::mt19937_64(*rc::gen::arbitrary<std::uint64_t>()));

  DuplicateFinder finder;
  std::size_t found = 0;
  for (std::size_t start = 0; start < ids.size();) {
    const std::size_t n = *rc::gen::inRange<std::size_t>(1, ids.size() - start + 1);
    found += finder.add(std::span<const Id>(ids).subspan(start, n));
    start += n;
  }
  RC_ASSERT(found == planted);
  RC_ASSERT(finder.duplicates() == planted);
  RC_ASSERT(count_duplicates(ids) == planted);
  RC_ASSERT(finder.seen() == ids.size());
}

// The history every Snowflake variant is run through below: ten IDs in each of three ticks, then
// the wall clock stepped back 3 ms (an NTP step) onto the first of them, then ten more IDs.
std::vector<Id> step_back_history(std::string_view variant, PolicyKind policy) {
  auto clock = std::make_shared<ManualClock>(1'780'000'000'000'000'000);
  GeneratorOptions opts;
  opts.layout = Layout::parse("twitter", 1'780'000'000'000);
  opts.policy = Policy::of(policy);
  opts.node = 7;
  opts.clock = clock;
  auto gen = make_generator(variant, opts);
  std::vector<Id> ids;
  for (int tick = 0; tick < 3; ++tick) {
    for (int i = 0; i < 10; ++i) ids.push_back(gen->next());
    clock->advance_ms(1);
  }
  clock->step_wall_ms(-3);
  for (int i = 0; i < 10; ++i) ids.push_back(gen->next());
  return ids;
}

constexpr std::string_view kSnowflakeVariants[] = {"mutex", "cas", "thread-local"};

TEST(PlantedDefect, UnsafeSnowflakeDuplicatesAfterAStepBackAreFound) {
  for (const std::string_view variant : kSnowflakeVariants) {
    SCOPED_TRACE(variant);
    const std::vector<Id> ids = step_back_history(variant, PolicyKind::unsafe);
    // Back on the first tick, unsafe restarts its sequence at 0: all ten repeat that tick.
    EXPECT_EQ(count_duplicates(ids), 10u);
  }
}

TEST(PlantedDefect, TheSameHistoryUnderWaitHasNoDuplicates) {
  for (const std::string_view variant : kSnowflakeVariants) {
    SCOPED_TRACE(variant);
    EXPECT_EQ(count_duplicates(step_back_history(variant, PolicyKind::wait)), 0u);
  }
}

}  // namespace
}  // namespace idbench::property
