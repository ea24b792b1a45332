// uuidv8 — RFC 9562 §5.8 UUIDv8 with a node field: 48-bit Unix ms, a 16-bit node id, a 26-bit
// counter and 32 random bits (the layout: generators/uuid_format.hpp).
//
// Why a v8: a node id belongs in a v8, not in a v7 (whose rand bits §5.7 reserves for
// randomness). With a node field, two generators never need their random tails to differ: the
// node separates them, as Snowflake's does, and the counter (from 0 in each ms, so 2^26 IDs per
// ms) separates one generator's IDs. The random bits remain so that an ID is not guessable
// from its neighbours (§8), not for uniqueness. The cost is the coordination Snowflake pays:
// each process needs a node id of its own (65,536 of them).
//
// The (ms, counter) state is the shared sequencer under the policy given, so clock faults,
// overflow and a persisted high-water mark behave as for every other time-based variant.
#include <fmt/format.h>

#include "generators/errors.hpp"
#include "generators/locked_sequencer.hpp"
#include "generators/random.hpp"
#include "generators/registry.hpp"
#include "generators/snowflake.hpp"
#include "generators/uuid_format.hpp"

namespace idbench {
namespace {

std::uint64_t checked_node(std::uint64_t node) {
  if (node > uuid_format::kV8MaxNode) {
    throw NodeError(fmt::format("node id {} does not fit uuidv8's {}-bit node field (0 … {})", node,
                                uuid_format::kV8NodeBits, uuid_format::kV8MaxNode));
  }
  return node;
}

class UuidV8 {
 public:
  using id_type = Uuid;
  explicit UuidV8(const GeneratorOptions& opts)
      : node_(checked_node(opts.node)),
        core_(space(), initial_state(opts, space(), opts.node), opts) {}

  Uuid next() {
    const std::uint32_t tail = random_u32();  // outside the lock: the buffer is per thread
    const TickState s = core_.next([] { return std::uint64_t{0}; });
    return uuid_format::v8({.unix_ms = static_cast<std::uint64_t>(s.tick),
                            .node = node_,
                            .counter = s.seq,
                            .random = tail});
  }
  std::string format() const {
    return fmt::format(
        "UUIDv8 (RFC 9562 §5.8): 48-bit ms, node {} of 16 bits, 26-bit counter, "
        "32 random bits, policy {}",
        node_, core_.policy().name());
  }

 private:
  static SequenceSpace space() {
    return uuid_format::v7_space(uuid_format::kV8MaxCounter, "uuidv8");
  }

  const std::uint64_t node_;
  LockedSequencer<ClockRead::before_lock, TickUnit::one_ms> core_;
};

}  // namespace

Variant describe_uuidv8() {
  Variant v = time_uuid_variant(
      "uuidv8", "RFC 9562 UUIDv8: 48-bit ms, 16-bit node id, 26-bit counter, 32 CSPRNG bits",
      Ordering::k_sorted, IdTime::uuidv8, factory_of<UuidV8>());
  v.node_ids = NodeIds::one;
  v.defaults = {.chaos = true, .chaos_quick = false, .locality = true};
  return v;
}

}  // namespace idbench
