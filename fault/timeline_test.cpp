// timeline_test.cpp — the timeline's records carry both clocks and say one line each, notes
// are told apart, instant 0 can be moved, and a wait ends no earlier than its deadline, calls
// its watch and ends on an interrupt.
#include "fault/timeline.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <cstdio>
#include <stdexcept>
#include <string>

#include "plumbing/child_process.hpp"
#include "plumbing/raw_time.hpp"

namespace idbench::fault {
namespace {

constexpr std::int64_t kMs = 1'000'000;

// Progress lines written to memory.
class Captured {
 public:
  Captured() : file_(::open_memstream(&buf_, &size_)) {}
  ~Captured() {
    std::fclose(file_);
    std::free(buf_);
  }
  std::FILE* file() { return file_; }
  std::string text() {
    std::fflush(file_);
    return std::string(buf_, size_);
  }

 private:
  char* buf_ = nullptr;
  std::size_t size_ = 0;
  std::FILE* file_;
};

TEST(Timeline, ARecordCarriesBothClocksAndIsSaidOnce) {
  Captured out;
  Timeline t("chaos", "ntp-step-back", out.file());
  const Instant before = Instant::now();
  const FaultRecord r = t.record(1, "step", "NTP steps node 1 back 200 ms");
  const Instant after = Instant::now();
  EXPECT_GE(r.true_ns, before.true_ns);
  EXPECT_LE(r.true_ns, after.true_ns);
  EXPECT_GE(r.mono_ns, before.mono_ns);
  EXPECT_LE(r.mono_ns, after.mono_ns);
  EXPECT_EQ(r.node, 1);
  EXPECT_EQ(r.kind, "step");
  EXPECT_EQ(r.what, "NTP steps node 1 back 200 ms");
  ASSERT_EQ(t.history().size(), 1u);
  EXPECT_EQ(t.history()[0].what, r.what);
  const std::string said = out.text();
  EXPECT_TRUE(said.starts_with("chaos ntp-step-back: +0.")) << said;
  EXPECT_TRUE(said.ends_with(" s  NTP steps node 1 back 200 ms\n")) << said;
}

TEST(Timeline, ARecordAtAGivenInstantKeepsItAndItsOffsetFromInstantZero) {
  Captured out;
  Timeline t("worker-ids", "kill-leader deadline", out.file());
  t.start_in(0);
  const Instant at{t.start_true_ns() + 1'500 * kMs, t.start_mono_ns() + 1'500 * kMs};
  const FaultRecord r = t.record_at(at, kNoNode, "fault", "etcd leader killed");
  EXPECT_EQ(r.true_ns, at.true_ns);
  EXPECT_EQ(r.mono_ns, at.mono_ns);
  EXPECT_EQ(out.text(), "worker-ids kill-leader deadline: +1.50 s  etcd leader killed\n");
}

TEST(Timeline, ANoteIsTheHarnessNotAFault) {
  Captured out;
  Timeline t("chaos", "clock-slew", out.file());
  t.note(0, "the rate change landed 7.1 ms late");
  ASSERT_EQ(t.history().size(), 1u);
  EXPECT_EQ(t.history()[0].kind, "note");
  EXPECT_EQ(t.history()[0].node, 0);
  EXPECT_EQ(out.text(), "chaos clock-slew: note: the rate change landed 7.1 ms late\n");
}

TEST(Timeline, SayWritesOneLineAndNothingWhenQuiet) {
  Captured out;
  Timeline(">", "ticket-restore", out.file()).say("serving 1.0/1.0 s");
  EXPECT_EQ(out.text(), "> ticket-restore: serving 1.0/1.0 s\n");
  Timeline quiet("chaos", "x", nullptr);
  quiet.say("nothing");
  quiet.record(0, "step", "nothing");
  EXPECT_EQ(quiet.history().size(), 1u);
}

TEST(Timeline, StartInMovesInstantZeroOnBothClocks) {
  Timeline t("chaos", "x", nullptr);
  const Instant before = Instant::now();
  t.start_in(2'000 * kMs);
  EXPECT_GE(t.start_mono_ns(), before.mono_ns + 2'000 * kMs);
  EXPECT_GE(t.start_true_ns(), before.true_ns + 2'000 * kMs);
}

TEST(Timeline, AWaitEndsNoEarlierThanItsDeadlineAndWatchesOnTheWay) {
  Timeline t("chaos", "x", nullptr);
  int watched = 0;
  const std::int64_t deadline = plumbing::monotonic_ns() + 100 * kMs;
  t.wait_until(deadline, [&] { ++watched; });
  EXPECT_GE(plumbing::monotonic_ns(), deadline);
  EXPECT_GE(watched, 1) << "before the first step";
}

TEST(Timeline, AWatchThatThrowsEndsTheWait) {
  const std::int64_t deadline = plumbing::monotonic_ns() + 60'000 * kMs;
  EXPECT_THROW(wait_watching(deadline, [] { throw std::runtime_error("node 0 ended early"); }),
               std::runtime_error);
  EXPECT_LT(plumbing::monotonic_ns(), deadline);
}

// In a child process: the interrupt flag, once set, stays set for the process.
TEST(TimelineDeathTest, AnInterruptEndsTheWait) {
  EXPECT_EXIT(
      {
        plumbing::InterruptGuard guard;
        ::raise(SIGINT);
        try {
          wait_watching(plumbing::monotonic_ns() + 60'000 * kMs);
        } catch (const plumbing::Interrupted&) {
          std::_Exit(42);
        }
        std::_Exit(1);
      },
      ::testing::ExitedWithCode(42), "");
}

}  // namespace
}  // namespace idbench::fault
