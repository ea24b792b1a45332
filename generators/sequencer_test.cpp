#include "generators/sequencer.hpp"

#include <gtest/gtest.h>

#include "generators/snowflake.hpp"
#include "generators/uuid_format.hpp"

namespace idbench {
namespace {

SequenceSpace space(std::uint64_t max_seq = 3) {
  SequenceSpace s;
  s.max_seq = max_seq;
  s.max_tick = 1000;
  s.unit_ms = 1;
  s.format_name = "test";
  return s;
}

Decision decide(TickState old, std::int64_t now, PolicyKind kind, std::int64_t bound = -1) {
  Policy p = Policy::of(kind);
  if (bound >= 0) p.bound_ms = bound;
  return next_state(old, now, 0, p, space());
}

TEST(NextState, FirstIdStartsAtTheFreshSequence) {
  const Decision d = next_state({}, 10, 2, Policy{}, space());
  EXPECT_EQ(d.action, Action::issue);
  EXPECT_EQ(d.next, (TickState{10, 2}));
}

TEST(NextState, SameTickAdvancesTheSequence) {
  EXPECT_EQ(decide({10, 1}, 10, PolicyKind::refuse).next, (TickState{10, 2}));
}

TEST(NextState, NewTickResetsTheSequence) {
  EXPECT_EQ(decide({10, 3}, 11, PolicyKind::refuse).next, (TickState{11, 0}));
}

TEST(NextState, OverflowSpinsToTheNextTickForEveryPolicyButBorrow) {
  for (auto kind :
       {PolicyKind::refuse, PolicyKind::wait, PolicyKind::bounded_wait, PolicyKind::unsafe}) {
    EXPECT_EQ(decide({10, 3}, 10, kind).action, Action::spin_next_tick);
  }
}

TEST(NextState, BorrowMovesTheTickForwardOnOverflow) {
  const Decision d = decide({10, 3}, 10, PolicyKind::borrow);
  EXPECT_EQ(d.action, Action::issue);
  EXPECT_EQ(d.next, (TickState{11, 0}));
}

TEST(NextState, RefuseReportsHowFarBehind) {
  const Decision d = decide({10, 0}, 7, PolicyKind::refuse);
  EXPECT_EQ(d.action, Action::refuse);
  EXPECT_EQ(d.behind_ticks, 3);
}

TEST(NextState, WaitWaitsForTheClock) {
  EXPECT_EQ(decide({10, 0}, 7, PolicyKind::wait).action, Action::wait_for_clock);
}

TEST(NextState, BoundedWaitFailsAtOnceBeyondItsBound) {
  EXPECT_EQ(decide({10, 0}, 7, PolicyKind::bounded_wait, 5).action, Action::wait_for_clock);
  EXPECT_EQ(decide({10, 0}, 4, PolicyKind::bounded_wait, 5).action, Action::wait_too_long);
}

TEST(NextState, BorrowKeepsTheLastTickWithinItsBound) {
  EXPECT_EQ(decide({10, 0}, 7, PolicyKind::borrow, 5).next, (TickState{10, 1}));
}

TEST(NextState, BorrowAtItsBoundWaitsForTheClockUnderLoad) {
  // Sequence spent 3 ms ahead with a 3 ms bound: moving on would pass the bound, but the
  // clock will catch up, so it waits rather than failing a burst.
  EXPECT_EQ(decide({10, 3}, 7, PolicyKind::borrow, 3).action, Action::spin_next_tick);
}

TEST(NextState, BorrowFailsWhenTheClockIsBehindByMoreThanItsBound) {
  const Decision d = decide({10, 0}, 6, PolicyKind::borrow, 3);
  EXPECT_EQ(d.action, Action::borrow_too_far);
  EXPECT_EQ(d.ahead_ticks, 4);
}

TEST(NextState, UnsafeResetsTheSequenceAtTheEarlierTick) {
  const Decision d = decide({10, 2}, 7, PolicyKind::unsafe);
  EXPECT_EQ(d.action, Action::issue);
  EXPECT_EQ(d.next, (TickState{7, 0}));  // (7, 0) may have been issued already: the defect
}

TEST(NextState, ClockOutsideTheLayoutIsOutOfRangeNeverWrapped) {
  EXPECT_EQ(decide({}, -1, PolicyKind::unsafe).action, Action::out_of_range);
  EXPECT_EQ(decide({}, 1001, PolicyKind::unsafe).action, Action::out_of_range);
  EXPECT_EQ(decide({1000, 3}, 1000, PolicyKind::borrow).action, Action::out_of_range);
}

TEST(Advance, WaitSpinsUntilTheManualClockCatchesUp) {
  ManualClock clock(10'000'000, 100'000);  // wall 10 ms; each spin lets 0.1 ms pass
  TickState state{12, 0};
  const TickState got = advance(
      clock, Policy::of(PolicyKind::wait), space(), [&] { return state; },
      [&](TickState, TickState next) {
        state = next;
        return true;
      },
      [] { return std::uint64_t{0}; });
  EXPECT_EQ(got, (TickState{12, 1}));
  EXPECT_GE(clock.wall_ms(), 12);
}

// A wall clock stuck behind the last tick while steady time passes: the wait must give up
// after its bound, measured on the steady clock.
class StuckWallClock final : public Clock {
 public:
  std::int64_t wall_ns() const override { return 12'000'000; }
  std::int64_t steady_ns() const override { return steady_; }
  void relax() override { steady_ += 100'000; }
  std::int64_t steady_ = 0;
};

TEST(Advance, BoundedWaitMeasuresItsBoundOnTheSteadyClock) {
  StuckWallClock clock;
  TickState state{13, 0};  // 1 ms ahead of the stuck clock: within the 5 ms bound
  EXPECT_THROW(advance(
                   clock, Policy::of(PolicyKind::bounded_wait), space(), [&] { return state; },
                   [](TickState, TickState) { return true; }, [] { return std::uint64_t{0}; }),
               WaitBoundExceeded);
  EXPECT_GT(clock.steady_, 5'000'000);
  EXPECT_LE(clock.steady_, 5'200'000);
}

TEST(Advance, RefuseThrowsWithTheMessageTwitterUsed) {
  ManualClock clock(7'000'000);
  TickState state{10, 0};
  try {
    advance(
        clock, Policy::of(PolicyKind::refuse), space(), [&] { return state; },
        [](TickState, TickState) { return true; }, [] { return std::uint64_t{0}; });
    FAIL();
  } catch (const ClockMovedBackwards& e) {
    EXPECT_EQ(e.behind_ms(), 3);
    EXPECT_STREQ(e.what(), "clock moved backwards: refusing for 3 ms");
  }
}

// --- clock-sequence (DCE 1994): the generation changes instead of the clock being waited for.

SequenceSpace gen_space(std::uint64_t max_gen) {
  SequenceSpace s = space();
  s.max_gen = max_gen;
  return s;
}

Decision sequence(TickState old, std::int64_t now, std::uint64_t max_gen) {
  return next_state(old, now, 0, Policy::of(PolicyKind::clock_sequence), gen_space(max_gen));
}

TEST(ClockSequence, AStepBackIssuesAtTheClocksTimeUnderTheNextGeneration) {
  const TickState old{100, 2, {5, 5, -1, 100}};
  const Decision d = sequence(old, 40, 7);
  EXPECT_EQ(d.action, Action::issue);
  EXPECT_EQ(d.next, (TickState{40, 0, {6, 5, -1, 100}}));
  EXPECT_EQ(d.behind_ticks, 60);
}

TEST(ClockSequence, TheGenerationWrapsAroundItsField) {
  const Decision d = sequence({100, 0, {3, 1, -1, 100}}, 40, 3);
  EXPECT_EQ(d.action, Action::issue);
  EXPECT_EQ(d.next.gens.gen, 0u);
}

TEST(ClockSequence, AnExhaustedLapWaitsForTheClock) {
  // Generations 0..1, lap began at 0 and is now at 1: gen 0 issued ticks up to 100.
  EXPECT_EQ(sequence({90, 0, {1, 0, -1, 100}}, 40, 1).action, Action::wait_for_clock);
  // One generation (no gen field): clock-sequence is `wait`.
  EXPECT_EQ(sequence({90, 0, {0, 0, -1, 90}}, 40, 0).action, Action::wait_for_clock);
}

TEST(ClockSequence, NeverBumpsIntoTicksAtOrBelowTheFloor) {
  // Generations outside the lap issued ticks up to 50: a step back to 50 would reuse them.
  EXPECT_EQ(sequence({90, 0, {2, 2, 50, 90}}, 50, 7).action, Action::wait_for_clock);
  EXPECT_EQ(sequence({90, 0, {2, 2, 50, 90}}, 51, 7).action, Action::issue);
}

TEST(ClockSequence, AnIdPastTheHighestTickRenewsAnExhaustedLap) {
  // Exhausted (0..1 used) at gen 1, highest tick 100: tick 101 renews the lap at gen 1.
  const Decision d = sequence({100, 0, {1, 0, -1, 100}}, 101, 1);
  EXPECT_EQ(d.next, (TickState{101, 0, {1, 1, 100, 101}}));
  // Then a step back above the floor may use generation 0 again; one to the floor may not.
  EXPECT_EQ(sequence(d.next, 100, 1).action, Action::wait_for_clock);
  const TickState later{150, 0, {1, 1, 100, 150}};
  EXPECT_EQ(sequence(later, 120, 1).next, (TickState{120, 0, {0, 1, 100, 150}}));
  // A lap with room left keeps its floor when the clock passes the highest tick.
  EXPECT_EQ(sequence({100, 0, {1, 0, -1, 100}}, 101, 3).next,
            (TickState{101, 0, {1, 0, -1, 101}}));
}

TEST(ClockSequence, WithinATickItCountsAsEveryPolicyDoes) {
  EXPECT_EQ(sequence({100, 1, {2, 2, -1, 100}}, 100, 3).next, (TickState{100, 2, {2, 2, -1, 100}}));
  EXPECT_EQ(sequence({100, 3, {2, 2, -1, 100}}, 100, 3).action, Action::spin_next_tick);
}

TEST(ClockSequence, OtherPoliciesCarryTheGenerationsUnchanged) {
  const Generations g{3, 1, 7, 9};
  EXPECT_EQ(decide({10, 1, g}, 11, PolicyKind::refuse).next.gens, g);
  EXPECT_EQ(decide({10, 1, g}, 10, PolicyKind::borrow).next.gens, g);
  EXPECT_EQ(decide({10, 1, g}, 7, PolicyKind::unsafe).next.gens, g);
}

TEST(ClockSequence, SubMillisecondTicksReportWholeMilliseconds) {
  SequenceSpace s = space();
  s.ns_per_tick = 100;
  s.max_tick = std::int64_t{1} << 60;
  EXPECT_EQ(s.ms_of_ticks(10'000), 1);
  EXPECT_EQ(s.ms_of_ticks(19'999), 1);
  EXPECT_EQ(s.tick_of_wall_ns(1'000), 10);
  EXPECT_EQ(s.unix_ms_of_tick(25'000), 2);
  ManualClock clock(1'000'000);  // 1 ms: 10,000 ticks of 100 ns
  TickState state{30'000, 0};     // 2 ms ahead
  try {
    advance(
        clock, Policy::of(PolicyKind::refuse), s, [&] { return state; },
        [](TickState, TickState) { return true; }, [] { return std::uint64_t{0}; });
    FAIL();
  } catch (const ClockMovedBackwards& e) {
    EXPECT_EQ(e.behind_ms(), 2);
  }
}

// A variant built for its tick unit reads the same ticks as the space's own conversion, before
// 1970 (a faked clock) and after, at tick boundaries and between them.
TEST(TickUnit, ReadsTheSameTicksAsTheSpace) {
  const std::int64_t readings[] = {-1'000'000'001,
                                   -1'000'000,
                                   -101,
                                   -100,
                                   -1,
                                   0,
                                   1,
                                   99,
                                   100,
                                   999'999,
                                   1'000'000,
                                   1'288'834'974'657'000'000,
                                   1'700'000'000'123'456'789,
                                   1'700'000'000'999'999'999};
  const SequenceSpace twitter = space_of(Layout::parse("twitter"));
  const SequenceSpace v7 = uuid_format::v7_space(1);
  const SequenceSpace dce = uuid_format::dce_space();
  ASSERT_EQ(tick_unit_of(twitter), TickUnit::one_ms);
  ASSERT_EQ(tick_unit_of(v7), TickUnit::one_ms);
  ASSERT_EQ(tick_unit_of(dce), TickUnit::hundred_ns);
  EXPECT_EQ(tick_unit_of(space_of(Layout::parse("sonyflake"))), TickUnit::any);  // 10 ms
  for (const std::int64_t ns : readings) {
    const ManualClock clock(ns);
    EXPECT_EQ(read_ticks<TickUnit::one_ms>(clock, twitter), twitter.tick_of_wall_ns(ns)) << ns;
    EXPECT_EQ(read_ticks<TickUnit::one_ms>(clock, v7), v7.tick_of_wall_ns(ns)) << ns;
    EXPECT_EQ(read_ticks<TickUnit::hundred_ns>(clock, dce), dce.tick_of_wall_ns(ns)) << ns;
  }
}

}  // namespace
}  // namespace idbench
