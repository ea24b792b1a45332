#include "generators/sequencer.hpp"

#include <fmt/format.h>

#include "generators/layout.hpp"

namespace idbench {

void throw_out_of_range(std::int64_t now_tick, const SequenceSpace& space) {
  const std::int64_t now_ms = space.unix_ms_of_tick(now_tick);
  if (now_tick < 0) {
    throw EpochExhausted(fmt::format("clock {} is before the epoch of {} ({})",
                                     format_utc_ms(now_ms), space.format_name,
                                     format_utc_ms(space.epoch_unix_ms)));
  }
  throw EpochExhausted(fmt::format(
      "clock {} is past the lifetime of {}: its last representable time is {}; refusing "
      "rather than wrapping",
      format_utc_ms(now_ms), space.format_name, format_utc_ms(space.last_unix_ms)));
}

}  // namespace idbench
