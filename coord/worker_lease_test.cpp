// worker_lease_test.cpp — the deadline fence's boundary, on a manual clock: held just before
// TTL − margin after the last answered renewal was sent, not at it. The etcd runs cannot see
// this boundary (their pauses are far longer than the lease), so a deadline of TTL + margin
// once passed all of them.
#include "coord/worker_lease.hpp"

#include <gtest/gtest.h>

namespace idbench::coord {
namespace {

constexpr std::int64_t kMs = 1'000'000;

TEST(LeaseDeadline, HeldUntilTtlLessMarginAfterTheLastAnsweredRenewalWasSent) {
  LeaseDeadline deadline(/*ttl_s=*/2, /*margin_ms=*/500);  // held for 1.5 s after a send
  const std::int64_t sent = 5'000 * kMs;                   // the manual clock's reading
  deadline.renewed(sent);
  EXPECT_TRUE(deadline.holds(sent));
  EXPECT_TRUE(deadline.holds(sent + 1'500 * kMs - 1));
  EXPECT_FALSE(deadline.holds(sent + 1'500 * kMs));
  EXPECT_FALSE(deadline.holds(sent + 2'000 * kMs));  // TTL: etcd may have expired the lease
  EXPECT_FALSE(deadline.holds(sent + 2'500 * kMs - 1));
}

TEST(LeaseDeadline, ARenewalMovesTheBoundaryToItsSendingNotItsAnswer) {
  LeaseDeadline deadline(/*ttl_s=*/1, /*margin_ms=*/250);  // held for 750 ms after a send
  deadline.renewed(0);
  deadline.renewed(600 * kMs);  // sent at 600 ms; its answer came whenever
  EXPECT_TRUE(deadline.holds(1'350 * kMs - 1));
  EXPECT_FALSE(deadline.holds(1'350 * kMs));
}

}  // namespace
}  // namespace idbench::coord
