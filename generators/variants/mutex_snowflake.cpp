// mutex — Twitter's algorithm (2010) behind one lock: compare the clock with the last tick,
// bump or reset the sequence. The clock is read before the lock is taken, and again under it
// only when the reading is behind the last tick (locked_sequencer.hpp), so callers queue behind
// a compare and an assignment, not a clock read. Twitter's own shape, with the read under the
// lock, is the bench's reference line (reference.hpp).
#include "generators/mutex_snowflake.hpp"

#include "generators/registry.hpp"

namespace idbench {
namespace {

template <TickUnit kUnit>
using MutexBeforeLock = MutexSnowflake<ClockRead::before_lock, kUnit>;

}  // namespace

Variant describe_mutex() {
  Variant v = snowflake_variant("mutex", "Snowflake with one std::mutex around Twitter's algorithm",
                                NodeIds::one, /*chaos_quick=*/false,
                                factory_by_tick_unit<MutexBeforeLock>());
  // On a layout with gen bits (the matrix gives it one) it keeps a clock sequence.
  v.defaults.clock_sequence = true;
  v.defaults.clock_sequence_quick = true;
  return v;
}

}  // namespace idbench
