#include "generators/clock.hpp"

namespace idbench {

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
