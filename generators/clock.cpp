#include "generators/clock.hpp"

#include <time.h>

namespace idbench {
namespace {

std::int64_t read_ns(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

std::int64_t WallClock::wall_ns() const { return read_ns(CLOCK_REALTIME); }
std::int64_t WallClock::steady_ns() const { return read_ns(CLOCK_MONOTONIC); }

void WallClock::relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

std::shared_ptr<Clock> wall_clock() {
  static const std::shared_ptr<Clock> clock = std::make_shared<WallClock>();
  return clock;
}

}  // namespace idbench
