// clock_page_test.cpp — the faked clock's page: the line, the clocks it moves and leaves
// alone, the dead man's switch, and a reader never seeing half an update.
#include "inject/clock_page.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <thread>

#include "plumbing/raw_time.hpp"

namespace idbench::inject {
namespace {

constexpr std::int64_t kSec = 1'000'000'000;

idbench_clock_view view_of(const ClockPage& p) { return idbench_clock_read(&p.page()); }

TEST(ClockPage, AnUnarmedPageReadsTrueTime) {
  ClockPage page;
  page.set_line(10 * kSec, 5 * kSec, 1.0);
  const idbench_clock_view v = view_of(page);
  EXPECT_EQ(idbench_fake_ns(&v, IDBENCH_CLOCK_REALTIME, 20 * kSec, 20 * kSec), 20 * kSec);
}

TEST(ClockPage, AnArmedPageFollowsItsLineOnTheRealtimeClocksOnly) {
  ClockPage page;
  const std::int64_t now = plumbing::true_ns();
  page.set_line(now, now - 200'000'000, 1.0);  // a step back of 200 ms
  page.renew();
  const idbench_clock_view v = view_of(page);
  const std::int64_t t = now + kSec;
  EXPECT_EQ(idbench_fake_ns(&v, IDBENCH_CLOCK_REALTIME, t, t), t - 200'000'000);
  EXPECT_EQ(idbench_fake_ns(&v, IDBENCH_CLOCK_REALTIME_COARSE, t, t), t - 200'000'000);
  EXPECT_EQ(idbench_fake_ns(&v, IDBENCH_CLOCK_TAI, t + 37 * kSec, t), t + 37 * kSec - 200'000'000);
  // an NTP step does not move the monotonic clocks
  EXPECT_EQ(idbench_fake_ns(&v, IDBENCH_CLOCK_MONOTONIC, 77, t), 77);
  EXPECT_EQ(idbench_fake_ns(&v, IDBENCH_CLOCK_BOOTTIME, 77, t), 77);
}

TEST(ClockPage, ARateSlewsAndZeroFreezes) {
  ClockPage page;
  const std::int64_t now = plumbing::true_ns();
  page.set_line(now, now, 0.5);
  page.renew();
  idbench_clock_view v = view_of(page);
  EXPECT_EQ(idbench_fake_ns(&v, IDBENCH_CLOCK_REALTIME, now + kSec, now + kSec), now + kSec / 2);
  page.set_line(now, now + 3, 0.0);
  v = view_of(page);
  EXPECT_EQ(idbench_fake_ns(&v, IDBENCH_CLOCK_REALTIME, now + kSec, now + kSec), now + 3);
}

TEST(ClockPage, AVmPauseMovesTheMonotonicClocksWhenAsked) {
  ClockPage page;
  const std::int64_t now = plumbing::true_ns();
  page.renew();
  page.move_monotonic(3 * kSec);
  const idbench_clock_view v = view_of(page);
  EXPECT_EQ(idbench_fake_ns(&v, IDBENCH_CLOCK_MONOTONIC, 5, now), 5 + 3 * kSec);
  EXPECT_EQ(idbench_fake_ns(&v, IDBENCH_CLOCK_BOOTTIME, 5, now), 5 + 3 * kSec);
  EXPECT_EQ(idbench_fake_ns(&v, IDBENCH_CLOCK_MONOTONIC_RAW, 5, now), 5 + 3 * kSec);
}

TEST(ClockPage, PastItsDeadlineAPageReadsTrueTime) {
  ClockPage page;
  const std::int64_t now = plumbing::true_ns();
  page.set_line(now, now - kSec, 1.0);
  page.renew(kSec);
  const idbench_clock_view v = view_of(page);
  const std::int64_t before = now + kSec / 2;
  const std::int64_t after = now + 2 * kSec;
  EXPECT_EQ(idbench_fake_ns(&v, IDBENCH_CLOCK_REALTIME, before, before), before - kSec);
  EXPECT_EQ(idbench_fake_ns(&v, IDBENCH_CLOCK_REALTIME, after, after), after);
}

TEST(ClockPage, ALeaseKeepsThePageArmedAndDisarmsItWhenItEnds) {
  ClockPage page;
  {
    ClockPage::Lease lease(page, 200'000'000);
    std::this_thread::sleep_for(std::chrono::milliseconds(450));  // more than two leases
    const std::int64_t deadline = view_of(page).deadline_ns;
    EXPECT_GT(deadline, plumbing::true_ns()) << "the lease was not renewed";
  }
  EXPECT_EQ(view_of(page).deadline_ns, 0);
}

TEST(ClockPage, ANegativeOrNanRateIsRefused) {
  ClockPage page;
  EXPECT_THROW(page.set_line(0, 0, -1.0), std::invalid_argument);
  EXPECT_THROW(page.set_line(0, 0, std::nan("")), std::invalid_argument);
}

// A reader racing the writer sees either the old line or the new one, never a mix: the two
// lines below give different fakes, and a torn read (anchor of one, rate of the other) gives a
// third value.
TEST(ClockPage, AReaderNeverSeesHalfAnUpdate) {
  ClockPage page;
  page.renew(3600 * kSec);
  const std::int64_t t = plumbing::true_ns();
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    for (int i = 0; !stop.load(std::memory_order_relaxed); ++i) {
      if (i % 2 == 0)
        page.set_line(t, t - kSec, 1.0);
      else
        page.set_line(t - kSec, t + kSec, 2.0);
    }
  });
  const std::int64_t at = t + kSec;
  int torn = 0;
  for (int i = 0; i < 200'000; ++i) {
    const idbench_clock_view v = view_of(page);
    const std::int64_t f = idbench_fake_ns(&v, IDBENCH_CLOCK_REALTIME, at, at);
    // line A: t − 1 s + 1 s = t; line B: t + 1 s + 2·2 s = t + 5 s; the initial line: at
    if (f != t && f != t + 5 * kSec && f != at) ++torn;
  }
  stop = true;
  writer.join();
  EXPECT_EQ(torn, 0);
}

}  // namespace
}  // namespace idbench::inject
