// errors.cpp — the messages of the clock refusals (see errors.hpp).
#include "generators/errors.hpp"

#include <fmt/format.h>

namespace idbench {

ClockMovedBackwards::ClockMovedBackwards(std::int64_t behind_ms)
    : ClockError(fmt::format("clock moved backwards: refusing for {} ms", behind_ms)),
      behind_ms_(behind_ms) {}

WaitBoundExceeded::WaitBoundExceeded(std::int64_t behind_ms, std::int64_t bound_ms)
    : ClockError(fmt::format("clock moved backwards by {} ms: more than the bounded wait of {} ms",
                             behind_ms, bound_ms)),
      behind_ms_(behind_ms) {}

BorrowLimitExceeded::BorrowLimitExceeded(std::int64_t ahead_ms, std::int64_t bound_ms)
    : ClockError(
          fmt::format("borrowing would run {} ms ahead of the clock: more than the bound of {} ms",
                      ahead_ms, bound_ms)),
      ahead_ms_(ahead_ms) {}

}  // namespace idbench
