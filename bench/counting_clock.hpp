// counting_clock.hpp — the wall clock the bench hands every time-based generator: the real
// `WallClock`, plus a per-thread count of `relax()` calls.
//
// A generator calls `relax()` each time it spins waiting for time to pass (sequence used up
// in this tick, or the clock behind). Reading the count before and after a call tells whether
// that call waited for the next tick — without the generator exposing anything, and without
// naming a variant. The readings themselves go straight to `WallClock` (one extra direct
// call, ~1 ns), so generators read the same CLOCK_REALTIME as in production.
//
// Limitation: a caller blocked on another thread's lock (the mutex variant) while that thread
// spins is not counted as waiting; its wait shows in its latency instead.
//
// Thread safety: thread-safe; the count is per thread.
#pragma once

#include <cstdint>

#include "generators/clock.hpp"

namespace idbench::bench {

class CountingWallClock final : public Clock {
 public:
  std::int64_t wall_ns() const override { return wall_.wall_ns(); }
  std::int64_t steady_ns() const override { return wall_.steady_ns(); }
  void relax() override {
    ++relaxes_;
    wall_.relax();
  }

  // How many times any CountingWallClock was relaxed on this thread.
  static std::uint64_t relaxes_on_this_thread() { return relaxes_; }

 private:
  WallClock wall_;
  // constinit: a constant-initialised thread_local needs no per-access init guard.
  static constinit inline thread_local std::uint64_t relaxes_ = 0;
};

}  // namespace idbench::bench
