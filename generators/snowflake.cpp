// snowflake.cpp — what the Snowflake variants share: layout space, starting state, config.
#include "generators/snowflake.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace idbench {

SequenceSpace space_of(const Layout& layout) {
  SequenceSpace space;
  space.max_seq = layout.max_seq();
  space.max_tick = layout.max_tick();
  space.unit_ms = layout.unit_ms();
  space.epoch_unix_ms = layout.epoch_unix_ms();
  space.last_unix_ms = layout.last_unix_ms();
  space.format_name = layout.name();
  return space;
}

namespace {

// The last Unix ms a Clock can read: its nanoseconds are an int64 (2262-04-11).
constexpr std::int64_t kClockLastMs = std::numeric_limits<std::int64_t>::max() / 1'000'000;

}  // namespace

void check_mark(std::int64_t mark_unix_ms, const SequenceSpace& space) {
  // 0 is what an unwritten or zeroed mark reads as, never a time an ID was issued at.
  const std::int64_t first = std::max<std::int64_t>(space.epoch_unix_ms, 1);
  const std::int64_t last = std::min(space.last_unix_ms, kClockLastMs);
  if (mark_unix_ms >= first && mark_unix_ms <= last) return;
  throw HighWaterMarkError(fmt::format(
      "high-water mark {} is not a time an ID of {} can carry: it must be Unix ms from {} ({}) "
      "to {} ({})",
      mark_unix_ms, space.format_name, first, format_utc_ms(first), last, format_utc_ms(last)));
}

TickState initial_state(const GeneratorOptions& opts, const SequenceSpace& space) {
  if (!opts.resume_after_unix_ms) return {};
  // Checked first: a tick below -1 would not even be representable by `cas`, whose packed
  // state stores tick + 1 unsigned (a mark before the epoch read back as a tick ~2^52 ahead,
  // refusing for ever, while `mutex` stored the negative tick and issued at once).
  check_mark(*opts.resume_after_unix_ms, space);
  const std::int64_t tick =
      Clock::floor_div(*opts.resume_after_unix_ms - space.epoch_unix_ms, space.unit_ms);
  return {tick, space.max_seq};
}

SnowflakeConfig::SnowflakeConfig(const GeneratorOptions& opts)
    : layout(opts.layout),
      policy(opts.policy),
      node(opts.node),
      clock(opts.clock),
      space(space_of(layout)),
      initial(initial_state(opts, space)) {
  layout.check_node(node);
}

std::string SnowflakeConfig::format() const {
  return fmt::format("{} [{}] node {} policy {}", layout.name(), layout.spec(), node,
                     policy.name());
}

}  // namespace idbench
