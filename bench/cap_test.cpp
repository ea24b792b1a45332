// Behaviour of the cap arithmetic: counting IDs per tick per thread, merging threads, the
// interior rate and cap ratio, the format cap of layouts, the run summary built on them, and
// how a run learns the time its IDs carry (from the variant's description).
#include "bench/cap.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <vector>

#include "bench/id_time.hpp"
#include "bench/summary.hpp"
#include "generators/layout.hpp"
#include "generators/uuid_format.hpp"

namespace idbench::bench {
namespace {

TickSpan span_of(const std::vector<std::pair<std::int64_t, int>>& ticks_and_counts) {
  TickSpan s;
  for (const auto& [tick, n] : ticks_and_counts) {
    for (int i = 0; i < n; ++i) s.observe(tick);
  }
  return s;
}

TEST(TickSpan, CountsTheFirstAndLastTickOfAThread) {
  const TickSpan s = span_of({{5, 2}, {6, 3}, {7, 1}});
  EXPECT_EQ(s.first, 5);
  EXPECT_EQ(s.first_count(), 2u);
  EXPECT_EQ(s.last, 7);
  EXPECT_EQ(s.in_last, 1u);
  EXPECT_EQ(s.total, 6u);
}

TEST(TickSpan, AThreadThatStayedInOneTickHasAllItsIdsInIt) {
  const TickSpan s = span_of({{9, 4}});
  EXPECT_EQ(s.first_count(), 4u);
  EXPECT_EQ(s.in_last, 4u);
}

TEST(CapRatio, EveryInteriorTickFullIsExactlyOneWhateverTheEdges) {
  // Cap 4 per tick: the run started late in tick 10 and stopped early in tick 14.
  const std::vector<TickSpan> spans = {span_of({{10, 2}, {11, 4}, {12, 4}, {13, 4}, {14, 1}})};
  const auto s = merge_spans(spans);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->interior_ticks, 3);
  EXPECT_EQ(s->interior_ids, 12u);
  EXPECT_DOUBLE_EQ(*cap_ratio(*s, 4), 1.0);
  EXPECT_DOUBLE_EQ(*rate_by_id_time(*s, 0.001), 4000.0);
}

TEST(CapRatio, HalfFullInteriorTicksAreOneHalf) {
  const std::vector<TickSpan> spans = {span_of({{0, 4}, {1, 2}, {2, 2}, {3, 4}})};
  EXPECT_DOUBLE_EQ(*cap_ratio(*merge_spans(spans), 4), 0.5);
}

TEST(CapRatio, ThreadsStartingAndEndingInsideTheSpanCountOnlyTheirInteriorIds) {
  // Two node ids (cap 2 × 4 = 8 per tick). A runs ticks 10..14; B starts in 11, ends in 13;
  // C lives only in the first tick, D only in the last.
  const std::vector<TickSpan> spans = {
      span_of({{10, 1}, {11, 4}, {12, 4}, {13, 4}, {14, 3}}),
      span_of({{11, 2}, {12, 4}, {13, 1}}),
      span_of({{10, 5}}),
      span_of({{14, 6}}),
  };
  const auto s = merge_spans(spans);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->first_tick, 10);
  EXPECT_EQ(s->last_tick, 14);
  EXPECT_EQ(s->total, 16u + 7u + 5u + 6u);
  EXPECT_EQ(s->interior_ids, 12u + 7u);
  EXPECT_DOUBLE_EQ(*cap_ratio(*s, 8), 19.0 / 24.0);
}

TEST(CapRatio, ARunOfFewerThanThreeTicksHasNoInteriorAndNoRatio) {
  const std::vector<TickSpan> spans = {span_of({{3, 4}, {4, 4}})};
  const auto s = merge_spans(spans);
  ASSERT_TRUE(s);
  EXPECT_FALSE(cap_ratio(*s, 4));
  EXPECT_FALSE(rate_by_id_time(*s, 0.001));
}

TEST(CapRatio, NoIdsNoSummary) {
  const std::vector<TickSpan> spans(3);
  EXPECT_FALSE(merge_spans(spans));
}

TEST(FormatCap, TwitterIs4096PerMsPerNodeAndScalesWithNodes) {
  const Layout twitter = Layout::parse("twitter");
  const FormatCap one = format_cap(twitter, 1);
  EXPECT_DOUBLE_EQ(one.ids_per_tick, 4096);
  EXPECT_DOUBLE_EQ(one.ids_per_second, 4'096'000);
  EXPECT_DOUBLE_EQ(one.tick_seconds, 0.001);
  EXPECT_DOUBLE_EQ(format_cap(twitter, 2).ids_per_second, 8'192'000);
}

TEST(FormatCap, SonyflakeIs256Per10MsTick) {
  const FormatCap c = format_cap(Layout::parse("sonyflake"), 1);
  EXPECT_DOUBLE_EQ(c.ids_per_tick, 256);
  EXPECT_DOUBLE_EQ(c.tick_seconds, 0.01);
  EXPECT_DOUBLE_EQ(c.ids_per_second, 25'600);
}

TEST(TickShift, ShiftingOutNodeAndSequenceGivesTheTickForEveryPreset) {
  std::mt19937_64 rng(3);
  for (const auto& preset : Layout::presets()) {
    const Layout layout = Layout::parse(preset.name);
    for (int i = 0; i < 1000; ++i) {
      const LayoutFields f{.tick = static_cast<std::int64_t>(rng() % (layout.max_tick() + 1)),
                           .node = rng() % (layout.max_node() + 1),
                           .seq = rng() % (layout.max_seq() + 1)};
      ASSERT_EQ(static_cast<std::int64_t>(layout.encode(f) >> tick_shift(layout)), f.tick)
          << preset.name;
    }
  }
}

// How an ID tells time comes from the variant's description, never from calling it: a
// described variant whose factory would throw still gets its model.
TEST(IdModelOf, ComesFromTheDescriptionAlone) {
  const Layout twitter = Layout::parse("twitter");
  Variant v;
  v.name = "scratch";
  v.id_time = IdTime::uuidv7;
  v.make = [](const GeneratorOptions&) -> std::unique_ptr<Generator> {
    throw std::logic_error("the bench must not build a generator to learn its id_time");
  };
  const IdModel m = id_model_of(v, twitter);
  EXPECT_EQ(m.id_time, IdTime::uuidv7);
  EXPECT_TRUE(m.counts_waits);
  v.id_time = IdTime::none;
  EXPECT_EQ(id_model_of(v, twitter).id_time, IdTime::none);
  EXPECT_FALSE(id_model_of(v, twitter).layout);
}

// The readers with_time_of hands the loops: a layout ID gives its tick, a UUIDv7 its Unix ms
// (through unix_ms_of), an ID that carries no such time nothing.
TEST(WithTimeOf, ReadsTheTimeTheModelSays) {
  const Layout twitter = Layout::parse("twitter");
  const std::uint64_t ms = 1'764'474'000'123;
  const Id v7 = Id::from_uuid(uuid_format::v7(ms, 0xABC, 0x1234'5678'9ABC'DEF0));
  const IdModel uuid{.id_time = IdTime::uuidv7, .layout = twitter, .counts_waits = true};
  EXPECT_EQ(with_time_of(uuid, [&](auto time_of) { return time_of(v7); }),
            std::optional<std::int64_t>(static_cast<std::int64_t>(ms)));
  const Id snowflake = Id::from_u64(twitter.encode({.tick = 77, .node = 3, .seq = 5}));
  const IdModel layout{.id_time = IdTime::layout, .layout = twitter, .counts_waits = true};
  EXPECT_EQ(with_time_of(layout, [&](auto time_of) { return time_of(snowflake); }),
            std::optional<std::int64_t>(77));
  EXPECT_EQ(with_time_of(IdModel{}, [&](auto time_of) { return time_of(v7); }), std::nullopt);
}

TEST(DistinctNodes, CountsNodeIdsNotIds) {
  const Layout twitter = Layout::parse("twitter");
  const std::vector<std::uint64_t> ids = {twitter.encode({.tick = 1, .node = 3, .seq = 0}),
                                          twitter.encode({.tick = 2, .node = 3, .seq = 9}),
                                          twitter.encode({.tick = 2, .node = 5, .seq = 0})};
  EXPECT_EQ(distinct_nodes(twitter, ids), 2u);
}

// A run of two threads on two node ids, built by hand: 1 tick = 1 ns of TSC on a 1 GHz
// calibration, so every number below can be checked with a pencil.
TEST(Summarize, TwoNodeRunGivesRateCapRatioWaitsAndPercentiles) {
  const Layout twitter = Layout::parse("twitter");
  TickCalibration ticks;
  ticks.ticks_per_ns = 1.0;
  std::vector<ThreadResult> threads(2);
  for (std::uint64_t node = 0; node < 2; ++node) {
    ThreadResult& t = threads[node];
    // Ticks 100..103: 1 ID in the first, 4096 in each of the two interior, 10 in the last.
    const std::vector<std::pair<std::int64_t, std::uint64_t>> per_tick = {
        {100, 1}, {101, 4096}, {102, 4096}, {103, 10}};
    for (const auto& [tick, n] : per_tick) {
      for (std::uint64_t s = 0; s < n; ++s) {
        const std::uint64_t id = twitter.encode({.tick = tick, .node = node, .seq = s});
        if (t.calls == 0) t.first_id = Id::from_u64(id);
        t.last_id = Id::from_u64(id);
        t.span.observe(static_cast<std::int64_t>(id >> tick_shift(twitter)));
        t.latency.record(t.calls % 100 == 99 ? 1000 : 20);
        ++t.calls;
      }
    }
    t.waited_calls = 3;
    t.start_ticks = 1'000'000'000 + node * 1000;
    t.end_ticks = 1'004'000'000 + node * 1000;
  }
  const IdModel model{.id_time = IdTime::layout, .layout = twitter, .counts_waits = true};
  const RunSummary s = summarize(threads, model, ticks, /*with_service=*/false);
  EXPECT_EQ(s.ids, 2u * 8203);
  EXPECT_NEAR(s.seconds, 0.004001, 1e-12);
  EXPECT_NEAR(s.ids_per_s_wall, 2 * 8203 / 0.004001, 1e-6);
  ASSERT_TRUE(s.nodes_used);
  EXPECT_EQ(*s.nodes_used, 2u);
  EXPECT_DOUBLE_EQ(*s.cap_per_s, 8'192'000);
  EXPECT_DOUBLE_EQ(*s.cap_ratio, 1.0);
  // By the IDs' clock the rate is the cap exactly; the wall rate counts the edge ticks too.
  EXPECT_DOUBLE_EQ(s.ids_per_s, 8'192'000);
  EXPECT_DOUBLE_EQ(*s.wait_ratio, 6.0 / (2 * 8203));
  EXPECT_DOUBLE_EQ(s.latency.p50_ns, 20);
  EXPECT_DOUBLE_EQ(s.latency.p999_ns, 1000);
  EXPECT_DOUBLE_EQ(s.latency.max_ns, 1000);
  EXPECT_FALSE(s.service);
}

TEST(Summarize, IdsWithoutTimeHaveNoCapNoIdRateAndNoWaits) {
  TickCalibration ticks;
  ticks.ticks_per_ns = 2.0;  // 2 ticks per ns
  std::vector<ThreadResult> threads(1);
  threads[0].calls = 1000;
  threads[0].start_ticks = 0;
  threads[0].end_ticks = 2'000'000;  // 1 ms
  threads[0].latency.record(40);     // 20 ns
  const RunSummary s = summarize(threads, IdModel{}, ticks, /*with_service=*/true);
  EXPECT_DOUBLE_EQ(s.ids_per_s, 1e6);
  EXPECT_DOUBLE_EQ(s.ids_per_s_wall, 1e6);
  EXPECT_FALSE(s.cap_ratio);
  EXPECT_FALSE(s.wait_ratio);
  EXPECT_DOUBLE_EQ(s.latency.p50_ns, 20);
  EXPECT_TRUE(s.service);
}

}  // namespace
}  // namespace idbench::bench
