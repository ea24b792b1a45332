// snowflake.cpp — what the Snowflake variants share: layout space, starting state, config.
#include "generators/snowflake.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "generators/random.hpp"

namespace idbench {

SequenceSpace space_of(const Layout& layout) {
  SequenceSpace space;
  space.max_seq = layout.max_seq();
  space.max_gen = layout.max_gen();
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

namespace {

// The last tick holding `unix_ms` (for a sub-ms tick, the tick of its last ns).
std::int64_t last_tick_of_ms(std::int64_t unix_ms, const SequenceSpace& space) {
  if (space.ns_per_tick == 0) return Clock::floor_div(unix_ms - space.epoch_unix_ms, space.unit_ms);
  std::int64_t last_ns = 0;
  if (__builtin_mul_overflow(unix_ms, 1'000'000, &last_ns) ||
      __builtin_add_overflow(last_ns, 999'999, &last_ns)) {
    last_ns = std::numeric_limits<std::int64_t>::max();
  }
  return space.tick_of_wall_ns(last_ns);
}

}  // namespace

Generations initial_generations(const GeneratorOptions& opts, const SequenceSpace& space,
                                std::uint64_t node, std::int64_t resumed_tick) {
  if (opts.policy.kind != PolicyKind::clock_sequence) return {};
  if (opts.generation_store) {
    if (std::optional<Generations> stored = opts.generation_store->load(node)) {
      // Every tick up to the mark may have been issued: `high` bounds them all.
      stored->high = std::max(stored->high, resumed_tick);
      return *stored;
    }
  }
  // No stable state: a random clock sequence (RFC 9562 §6.1). What a previous incarnation
  // issued up to a resumed mark may carry any generation, so nothing at or below it is free.
  const std::uint64_t gen = space.max_gen == 0 ? 0 : random_u64() % (space.max_gen + 1);
  const Generations fresh{gen, gen, resumed_tick, resumed_tick};
  // Stored at once, so the next incarnation goes on from it rather than from a random one.
  if (opts.generation_store) opts.generation_store->store(node, fresh);
  return fresh;
}

TickState initial_state(const GeneratorOptions& opts, const SequenceSpace& space,
                        std::uint64_t node) {
  TickState s;
  if (opts.resume_after_unix_ms) {
    // Checked first: a tick below -1 would not even be representable by `cas`, whose packed
    // state stores tick + 1 unsigned (a mark before the epoch read back as a tick ~2^52
    // ahead, refusing for ever, while `mutex` stored the negative tick and issued at once).
    check_mark(*opts.resume_after_unix_ms, space);
    s = {last_tick_of_ms(*opts.resume_after_unix_ms, space), space.max_seq};
  }
  s.gens = initial_generations(opts, space, node, s.tick);
  if (s.gens.high > s.tick) s = {s.gens.high, space.max_seq, s.gens};
  return s;
}

void store_new_generation(GenerationStore& store, std::uint64_t node, Generations before,
                          Generations after) {
  // `high` alone moves with every new tick and is bounded by the mark; only a new generation
  // or lap must be durable before an ID carries it.
  if (before.gen == after.gen && before.lap_first == after.lap_first &&
      before.floor == after.floor) {
    return;
  }
  store.store(node, after);
}

SnowflakeConfig::SnowflakeConfig(const GeneratorOptions& opts)
    : layout(opts.layout),
      packer(layout.packer()),
      policy(opts.policy),
      generation_store(opts.generation_store),
      node(opts.node),
      node_part(packer.node_part(node)),
      clock(opts.clock),
      space(space_of(layout)),
      initial(initial_state(opts, space, opts.node)) {
  layout.check_node(node);
}

std::string SnowflakeConfig::format() const {
  return fmt::format("{} [{}] node {} policy {}", layout.name(), layout.spec(), node,
                     policy.name());
}

}  // namespace idbench
