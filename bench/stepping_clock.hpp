// stepping_clock.hpp — a deterministic clock for counting instructions: every reading moves
// time forward by a fixed step, so the same calls see the same times on every run.
//
// Why not the wall clock: CLOCK_REALTIME is a vDSO call whose path (and so its instruction
// count) depends on when it is made (the seqlock retry, the tick a call lands in), and the
// number of IDs a Snowflake issues per millisecond depends on the machine's speed. With
// this clock, a generator's next() does the same work on every run: the count measures the
// generator's code, plus one virtual call where the vDSO read would be.
//
// The step (default 1 µs) keeps well under every layout's per-tick cap (4,096 per ms for
// Twitter's 12 sequence bits), so no call spins waiting for the next tick.
//
// Thread safety: thread-safe (relaxed atomics); meant for one thread.
#pragma once

#include <atomic>
#include <cstdint>

#include "generators/clock.hpp"

namespace idbench::bench {

class SteppingClock final : public Clock {
 public:
  explicit SteppingClock(std::int64_t start_ns = 1'700'000'000'000'000'000,
                         std::int64_t step_ns = 1'000)
      : now_(start_ns), step_(step_ns) {}

  // Relaxed: one thread reads it; only the sequence of values matters.
  std::int64_t wall_ns() const override {
    return now_.fetch_add(step_, std::memory_order_relaxed) + step_;
  }
  std::int64_t steady_ns() const override { return wall_ns(); }
  void relax() override { now_.fetch_add(step_, std::memory_order_relaxed); }

 private:
  mutable std::atomic<std::int64_t> now_;
  const std::int64_t step_;
};

}  // namespace idbench::bench
