// uuidv8_test — the uuidv8 variant: its node field, its counter, and what the node buys.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "generators/errors.hpp"
#include "generators/registry.hpp"
#include "generators/uuid_format.hpp"

namespace idbench {
namespace {

constexpr std::int64_t kStartMs = 1'790'000'000'000;

std::unique_ptr<Generator> uuidv8_on(const std::shared_ptr<ManualClock>& clock,
                                     std::uint64_t node) {
  GeneratorOptions o;
  o.policy = Policy::of(PolicyKind::refuse);
  o.clock = clock;
  o.node = node;
  return make_generator("uuidv8", o);
}

uuid_format::V8Fields fields_of(const Id& id) {
  const auto f = uuid_format::v8_fields(id.to_uuid());
  EXPECT_TRUE(f.has_value());
  return f.value_or(uuid_format::V8Fields{});
}

TEST(UuidV8, EveryIdCarriesItsMsAndNodeAndCountsFromZeroInEachMs) {
  auto clock = std::make_shared<ManualClock>(kStartMs * 1'000'000);
  auto gen = uuidv8_on(clock, 0xBEEF);
  for (int ms = 0; ms < 3; ++ms) {
    for (std::uint64_t i = 0; i < 5; ++i) {
      const uuid_format::V8Fields f = fields_of(gen->next());
      EXPECT_EQ(f.unix_ms, static_cast<std::uint64_t>(kStartMs + ms));
      EXPECT_EQ(f.node, 0xBEEFu);
      EXPECT_EQ(f.counter, i);
    }
    clock->advance_ms(1);
  }
}

// Two nodes on one clock, issuing in the same milliseconds: with their random tails wiped,
// the IDs are still all distinct. A UUIDv7 has only its random bits for this.
TEST(UuidV8, TwoNodesStayDistinctWithTheRandomTailWiped) {
  auto clock = std::make_shared<ManualClock>(kStartMs * 1'000'000);
  auto a = uuidv8_on(clock, 1);
  auto b = uuidv8_on(clock, 2);
  std::vector<Uuid> wiped;
  for (int i = 0; i < 3000; ++i) {
    for (auto* gen : {a.get(), b.get()}) {
      uuid_format::V8Fields f = fields_of(gen->next());
      f.random = 0;
      wiped.push_back(uuid_format::v8(f));
    }
    if (i % 1000 == 999) clock->advance_ms(1);
  }
  std::sort(wiped.begin(), wiped.end());
  EXPECT_EQ(std::adjacent_find(wiped.begin(), wiped.end()), wiped.end());
}

TEST(UuidV8, ANodeBeyondSixteenBitsIsRefused) {
  auto clock = std::make_shared<ManualClock>(kStartMs * 1'000'000);
  EXPECT_NO_THROW(uuidv8_on(clock, uuid_format::kV8MaxNode));
  EXPECT_THROW(uuidv8_on(clock, uuid_format::kV8MaxNode + 1), NodeError);
}

TEST(UuidV8, TheDescriptionCarriesTheNodeAndTheTime) {
  const Variant* v = find_variant("uuidv8");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->node_ids, NodeIds::one);
  EXPECT_EQ(v->id_time, IdTime::uuidv8);
  EXPECT_EQ(v->ordering, Ordering::k_sorted);
  EXPECT_TRUE(v->time_based);
  auto clock = std::make_shared<ManualClock>(kStartMs * 1'000'000);
  const Id id = uuidv8_on(clock, 3)->next();
  EXPECT_EQ(unix_ms_of(IdTime::uuidv8, id, Layout::parse("twitter", kStartMs)), kStartMs);
  EXPECT_FALSE(unix_ms_of(IdTime::uuidv8, Id::from_uuid(uuid_format::v7(5, 0, 0)),
                          Layout::parse("twitter", kStartMs))
                   .has_value());
}

}  // namespace
}  // namespace idbench
