// cas — the whole Snowflake state (tick and sequence) packed into one 64-bit atomic; each ID
// is one compare-exchange. No lock; one clock read per ID, and a lost compare-exchange retries
// from the state that won without reading the clock again. The cache line holding the state
// still bounces between cores.
#include <atomic>

#include "generators/registry.hpp"
#include "generators/snowflake.hpp"

namespace idbench {
namespace {

template <TickUnit kUnit>
class CasSnowflake {
 public:
  using id_type = std::uint64_t;
  explicit CasSnowflake(const GeneratorOptions& opts)
      : cfg_(opts),
        seq_bits_(cfg_.layout.seq_bits()),
        max_seq_(cfg_.layout.max_seq()),
        packed_(pack(cfg_.initial)) {
    if (cfg_.policy.kind == PolicyKind::clock_sequence && cfg_.space.max_gen > 0) {
      // One word holds (tick, seq); the clock sequence's lap (generation, first generation,
      // floor, highest tick) does not fit beside it. Without gen bits clock-sequence is
      // `wait`, and (tick, seq) is all it needs.
      throw Error("cas keeps its state in one 64-bit word, which cannot hold the "
                  "clock-sequence lap of a layout with gen bits; use mutex or thread-local");
    }
  }

  std::uint64_t next() {
    // The clock is read before the state is loaded, and again only when the state is ahead
    // of that reading (sequencer.hpp, advance_from): a lost compare-exchange decides again
    // from the state that won, without another clock read.
    const std::int64_t now = read_ticks<kUnit>(*cfg_.clock, cfg_.space);
    std::uint64_t expected = 0;
    const TickState issued = advance_from(
        now, *cfg_.clock, cfg_.policy, cfg_.space,
        [&] {
          expected = packed_.load(std::memory_order_relaxed);
          return unpack(expected);
        },
        [&](TickState& old, const TickState& next) {
          // Relaxed is enough: uniqueness needs only the single modification order of this one
          // atomic, and no other memory is published through it. On failure `expected` holds
          // the word that won, and the loop decides again from it.
          if (packed_.compare_exchange_weak(expected, pack(next), std::memory_order_relaxed,
                                            std::memory_order_relaxed)) {
            return true;
          }
          old = unpack(expected);
          return false;
        },
        [] { return std::uint64_t{0}; });
    return cfg_.encode_node_part(issued, cfg_.node_part);
  }
  std::string format() const { return cfg_.format(); }

 private:
  // (tick + 1) above seq, so "no tick yet" packs as 0. Fits: ts + seq + 1 <= 64 bits because
  // the node field has at least one bit.
  std::uint64_t pack(TickState s) const {
    return static_cast<std::uint64_t>(s.tick + 1) << seq_bits_ | s.seq;
  }
  TickState unpack(std::uint64_t v) const {
    return {static_cast<std::int64_t>(v >> seq_bits_) - 1, v & max_seq_};
  }

  const SnowflakeConfig cfg_;
  const int seq_bits_;
  const std::uint64_t max_seq_;  // worked out once: Layout::max_seq() branches on the width
  // Alone on its cache line: it is the only word every thread writes.
  alignas(64) std::atomic<std::uint64_t> packed_;
  static_assert(std::atomic<std::uint64_t>::is_always_lock_free);
};

}  // namespace

Variant describe_cas() {
  return snowflake_variant("cas",
                           "Snowflake state (tick, seq) in one 64-bit atomic, one compare-exchange per ID",
                           NodeIds::one, /*chaos_quick=*/true, factory_by_tick_unit<CasSnowflake>());
}

}  // namespace idbench
