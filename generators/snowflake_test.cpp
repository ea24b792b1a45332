// snowflake_test — what the Snowflake variants share: a layout's state space, the checked
// high-water mark and the state a generator resumes from.
#include "generators/snowflake.hpp"

#include <gtest/gtest.h>

namespace idbench {
namespace {

constexpr std::int64_t kNow = 1'790'000'000'000;

TEST(Snowflake, SpaceOfALayoutIsItsTicksAndSequence) {
  const Layout sony = Layout::parse("sonyflake", kNow);
  const SequenceSpace space = space_of(sony);
  EXPECT_EQ(space.max_seq, 255u);
  EXPECT_EQ(space.max_tick, (std::int64_t{1} << 39) - 1);
  EXPECT_EQ(space.unit_ms, 10);
  EXPECT_EQ(space.epoch_unix_ms, sony.epoch_unix_ms());
  EXPECT_EQ(space.last_unix_ms, sony.last_unix_ms());
  EXPECT_EQ(space.format_name, "sonyflake");
}

TEST(Snowflake, AMarkIsCheckedAtBothEndsOfTheLayout) {
  const SequenceSpace space = space_of(Layout::parse("baidu", kNow));
  EXPECT_NO_THROW(check_mark(space.epoch_unix_ms, space));
  EXPECT_NO_THROW(check_mark(space.last_unix_ms, space));
  EXPECT_THROW(check_mark(space.epoch_unix_ms - 1, space), HighWaterMarkError);
  EXPECT_THROW(check_mark(space.last_unix_ms + 1, space), HighWaterMarkError);
}

TEST(Snowflake, ResumingStartsFromTheMarksTickWithItsSequenceSpent) {
  GeneratorOptions opts;
  opts.layout = Layout::parse("sonyflake", kNow);
  const SequenceSpace space = space_of(opts.layout);
  EXPECT_EQ(initial_state(opts, space, 0), TickState{});  // no mark: no tick yet
  opts.resume_after_unix_ms = space.epoch_unix_ms + 25;
  EXPECT_EQ(initial_state(opts, space, 0), (TickState{2, 255}));  // 25 ms is in the third 10 ms tick
}

}  // namespace
}  // namespace idbench
