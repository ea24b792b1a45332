#include "generators/sequencer.hpp"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace idbench
