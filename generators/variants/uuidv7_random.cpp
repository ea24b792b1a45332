// uuidv7-random — UUIDv7 with no counter: 74 random bits after the millisecond, as libuuid's
// uuid_generate_time_v7 does. Unique by chance, but IDs within one ms arrive in random order:
// the baseline that shows what the counter of `uuidv7` buys for order and B-tree locality.
// The policy still governs the timestamp when the clock goes back.
//
// The random bits come from random.hpp's per-thread buffer (OpenSSL's DRBG, wiped once handed
// out, fork-safe), as uuidv7's do: 10 bytes per ID in one take (the 74 bits rounded up to whole
// bytes), drawn outside the lock.
#include "generators/locked_sequencer.hpp"
#include "generators/random.hpp"
#include "generators/registry.hpp"
#include "generators/snowflake.hpp"
#include "generators/uuid_format.hpp"

namespace idbench {

namespace {

// No counter: the sequence only counts calls within a ms and never overflows in practice.
constexpr std::uint64_t kUnusedSeq = ~std::uint64_t{0};

class UuidV7Random {
 public:
  using id_type = Uuid;
  explicit UuidV7Random(const GeneratorOptions& opts)
      : core_(uuid_format::v7_space(kUnusedSeq),
              initial_state(opts, uuid_format::v7_space(kUnusedSeq), opts.node), opts) {}

  Uuid next() {
    const Random80 random = random_80();  // outside the lock: the buffer is per thread
    const TickState s = core_.next([] { return std::uint64_t{0}; });
    // rand_a: 12 of the half word's 16 bits; rand_b: 62 of the word's 64.
    return uuid_format::v7(static_cast<std::uint64_t>(s.tick), random.half, random.word);
  }
  std::string format() const {
    return "UUIDv7 (RFC 9562), no counter: 74 random bits, policy " + core_.policy().name();
  }

 private:
  LockedSequencer<ClockRead::before_lock, TickUnit::one_ms> core_;
};

}  // namespace

Variant describe_uuidv7_random() {
  // A baseline: no scheme of its own (the report gives it a row apart), and only the locality
  // matrix runs it.
  Variant v = time_uuid_variant(
      "uuidv7-random", "UUIDv7 without a counter: random bits only within a ms (libuuid)",
      Ordering::k_sorted_by_tick, IdTime::uuidv7, factory_of<UuidV7Random>());
  v.defaults = {.chaos = false, .chaos_quick = false, .locality = true};
  return v;
}

}  // namespace idbench
