#include "generators/snowflake.hpp"

#include <fmt/format.h>

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

TickState initial_state(const GeneratorOptions& opts, const SequenceSpace& space) {
  if (!opts.resume_after_unix_ms) return {};
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
