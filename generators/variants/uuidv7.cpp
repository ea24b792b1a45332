// uuidv7 — RFC 9562 UUIDv7 with a monotonic counter.
//
// §6.2 method 1 (fixed-length dedicated counter), 42 bits wide: the 12 bits of rand_a and the
// top 30 bits of rand_b. Each new millisecond seeds the counter with 41 random bits, its top
// bit clear (§6.2 "counter rollover guard"), so 2^41 further IDs fit in one ms before it
// overflows; on overflow the generator waits for the next ms as every variant does (or, with
// `borrow`, moves the timestamp forward: §6.2's "increment the timestamp"). The remaining 32
// bits of rand_b are fresh CSPRNG bits per ID (§6.9), so IDs stay unguessable within a ms.
//
// Random bits come from random.hpp (buffered getrandom, fork-safe): 4 bytes per ID, plus 8 per
// new millisecond for the seed, from a 4 KiB per-thread buffer: the refill syscall (~7 µs per
// 4 KiB) amortises to ~7 ns per ID, instead of a ~370 ns syscall per ID.
#include "generators/locked_sequencer.hpp"
#include "generators/random.hpp"
#include "generators/registry.hpp"
#include "generators/snowflake.hpp"
#include "generators/uuid_format.hpp"

namespace idbench {

namespace {

constexpr int kCounterBits = 42;
constexpr std::uint64_t kMaxCounter = (std::uint64_t{1} << kCounterBits) - 1;

class UuidV7 {
 public:
  using id_type = Uuid;
  explicit UuidV7(const GeneratorOptions& opts)
      : core_(uuid_format::v7_space(kMaxCounter),
              initial_state(opts, uuid_format::v7_space(kMaxCounter), opts.node), opts) {}

  Uuid next() {
    const std::uint32_t tail = random_u32();  // outside the lock: the buffer is per thread
    // The seed (41 bits: the guard bit clear) is drawn only when a millisecond starts, so an
    // ID costs 4 random bytes, not 12.
    const TickState s = core_.next([] { return random_u64() >> (64 - (kCounterBits - 1)); });
    const std::uint64_t rand_a = s.seq >> 30;
    const std::uint64_t rand_b = (s.seq & ((std::uint64_t{1} << 30) - 1)) << 32 | tail;
    return uuid_format::v7(static_cast<std::uint64_t>(s.tick), rand_a, rand_b);
  }
  std::string format() const {
    return "UUIDv7 (RFC 9562), 42-bit counter (method 1), policy " + core_.policy().name();
  }

 private:
  LockedSequencer<ClockRead::before_lock, TickUnit::one_ms> core_;
};

}  // namespace

Variant describe_uuidv7() {
  Variant v = time_uuid_variant(
      "uuidv7", "RFC 9562 UUIDv7, 42-bit monotonic counter (§6.2 method 1), CSPRNG bits",
      Ordering::k_sorted, IdTime::uuidv7, factory_of<UuidV7>());
  v.scheme = "UUIDv7";
  v.defaults = {.chaos = true, .chaos_quick = true, .locality = true};
  return v;
}

}  // namespace idbench
