// dce_uuid.hpp — the UUIDv1/v6 generator (RFC 9562 §5.1, §5.6; DCE 1994): one class, two
// field orders.
//
//   time       60 bits of 100 ns since 1582-10-15, read through the Clock seam (its ns
//              reading / 100, plus the 0x01B21DD213814000 intervals before 1970);
//   clock_seq  14 bits: the clock-sequence policy's generation (sequencer.hpp); random at
//              start without stable storage (§6.1), else the stored one;
//   node       48 bits: configured (GeneratorOptions::uuid_node), or random with the
//              multicast bit set (§6.10), drawn once per generator.
//
// Two IDs in one 100-ns tick: the clock is read in ns, so the generator issues one ID per tick
// and a second call within the same 100 ns spins to the next tick (at most 100 ns; DCE's
// "stall until the clock catches up", with no counter in the low timestamp bits needed). The
// other policies work as for every variant: `refuse` refuses a step back, `wait` waits, and
// so on; only clock-sequence changes the clock sequence.
//
// Thread safety: thread-safe (LockedSequencer).
#pragma once

#include <fmt/format.h>

#include <string>

#include "generators/locked_sequencer.hpp"
#include "generators/random.hpp"
#include "generators/snowflake.hpp"
#include "generators/uuid_format.hpp"

namespace idbench {

template <int Version>
class DceUuid {
  static_assert(Version == 1 || Version == 6);

 public:
  using id_type = Uuid;
  explicit DceUuid(const GeneratorOptions& opts)
      : node_(node_of(opts)),
        core_(uuid_format::dce_space(), initial_state(opts, uuid_format::dce_space(), opts.node),
              opts) {}

  Uuid next() {
    const TickState s = core_.next([] { return std::uint64_t{0}; });
    const auto ts = static_cast<std::uint64_t>(s.tick);
    const uuid_format::DceFields f{.timestamp = ts, .clock_seq = s.gens.gen, .node = node_};
    return Version == 1 ? uuid_format::v1(f) : uuid_format::v6(f);
  }
  std::string format() const {
    return fmt::format("UUIDv{} (RFC 9562 §5.{}), 100-ns time since 1582, clock sequence, node "
                       "{:012x}, policy {}",
                       Version, Version == 1 ? 1 : 6, node_, core_.policy().name());
  }

 private:
  static std::uint64_t node_of(const GeneratorOptions& opts) {
    if (!opts.uuid_node) return (random_u64() & uuid_format::kNodeMask) | uuid_format::kMulticastBit;
    if (*opts.uuid_node > uuid_format::kNodeMask) {
      throw NodeError(fmt::format("UUID node {:#x} does not fit 48 bits", *opts.uuid_node));
    }
    return *opts.uuid_node;
  }

  const std::uint64_t node_;
  LockedSequencer<ClockRead::before_lock, TickUnit::hundred_ns> core_;
};

}  // namespace idbench
