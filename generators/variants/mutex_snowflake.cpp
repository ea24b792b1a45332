// mutex — Twitter's algorithm (2010) behind one lock: compare the clock with the last tick,
// bump or reset the sequence. The clock is read before the lock is taken, and again under it
// only when the reading is behind the last tick (locked_sequencer.hpp), so callers queue behind
// a compare and an assignment, not a clock read. Twitter's own shape, with the read under the
// lock, is the bench's reference line (reference.hpp).
#include "generators/locked_sequencer.hpp"
#include "generators/registry.hpp"
#include "generators/snowflake.hpp"

namespace idbench {
namespace {

class MutexSnowflake {
 public:
  using id_type = std::uint64_t;
  explicit MutexSnowflake(const GeneratorOptions& opts)
      : cfg_(opts), core_(cfg_.space, cfg_.initial, opts) {}

  std::uint64_t next() {
    return cfg_.encode(core_.next([] { return std::uint64_t{0}; }), cfg_.node);
  }
  std::string format() const { return cfg_.format(); }

 private:
  const SnowflakeConfig cfg_;
  LockedSequencer<> core_;
};

}  // namespace

Variant describe_mutex() {
  Variant v = snowflake_variant("mutex",
                           "Snowflake with one std::mutex around Twitter's algorithm",
                           NodeIds::one, /*chaos_quick=*/false, factory_of<MutexSnowflake>());
  // On a layout with gen bits (the matrix gives it one) it keeps a clock sequence.
  v.defaults.clock_sequence = true;
  v.defaults.clock_sequence_quick = true;
  return v;
}

}  // namespace idbench
