// clock.hpp — the Clock seam every time-based generator reads time through.
//
// Generators never call clock_gettime themselves: they hold a `Clock&`. Production code and
// chaos runs use `WallClock` (CLOCK_REALTIME, which libfaketime intercepts); tests use
// `ManualClock`, whose wall time they set, step back and advance at will.
//
// A clock answers two questions, as a real machine does:
//   * `wall_ns()` — Unix time in ns. It can jump either way (NTP step, leap second).
//   * `steady_ns()` — a monotonic reading, used only to measure durations (how long a
//     bounded wait has waited). Never used as a timestamp: a leap second once turned a
//     wall-clock duration negative and took down DNS resolution at a CDN.
// `relax()` is called by a generator each time it spins waiting for time to pass. A real
// clock just hints the CPU; the manual clock lets simulated time pass there, so a test of a
// waiting policy terminates without threads.
//
// Thread safety: all members are thread-safe.
#pragma once

#include <time.h>

#include <atomic>
#include <cstdint>
#include <memory>

namespace idbench {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual std::int64_t wall_ns() const = 0;
  virtual std::int64_t steady_ns() const = 0;
  virtual void relax() {}

  std::int64_t wall_ms() const { return floor_div(wall_ns(), 1'000'000); }

  // Floor division: a wall clock before 1970 must not round towards the epoch.
  static constexpr std::int64_t floor_div(std::int64_t a, std::int64_t b) {
    return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
  }
};

// CLOCK_REALTIME through the vDSO (~22 ns) and CLOCK_MONOTONIC. Inline, so a clock that wraps
// it (the bench's counting clock) reads the vDSO without a further call.
class WallClock final : public Clock {
 public:
  std::int64_t wall_ns() const override { return read_ns(CLOCK_REALTIME); }
  std::int64_t steady_ns() const override { return read_ns(CLOCK_MONOTONIC); }
  void relax() override;

 private:
  static std::int64_t read_ns(clockid_t id) {
    timespec ts{};
    clock_gettime(id, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
  }
};

// The process-wide wall clock, shared by every generator that is not given another.
std::shared_ptr<Clock> wall_clock();

// A clock that moves only when told to. `advance` moves both readings, as real time does;
// `set_wall`/`step_wall` move only the wall reading, as an NTP step does. Every `relax()`
// lets `relax_step_ns` of simulated time pass (default 100 µs; 0 makes spinning endless).
class ManualClock final : public Clock {
 public:
  explicit ManualClock(std::int64_t wall_ns = 1'700'000'000'000'000'000,
                       std::int64_t relax_step_ns = 100'000)
      : wall_(wall_ns), relax_step_(relax_step_ns) {}

  std::int64_t wall_ns() const override { return wall_.load(std::memory_order_relaxed); }
  std::int64_t steady_ns() const override { return steady_.load(std::memory_order_relaxed); }
  void relax() override { advance_ns(relax_step_.load(std::memory_order_relaxed)); }

  void advance_ns(std::int64_t ns) {
    wall_.fetch_add(ns, std::memory_order_relaxed);
    steady_.fetch_add(ns, std::memory_order_relaxed);
  }
  void advance_ms(std::int64_t ms) { advance_ns(ms * 1'000'000); }
  void set_wall_ns(std::int64_t ns) { wall_.store(ns, std::memory_order_relaxed); }
  void set_wall_ms(std::int64_t ms) { set_wall_ns(ms * 1'000'000); }
  void step_wall_ms(std::int64_t ms) { wall_.fetch_add(ms * 1'000'000, std::memory_order_relaxed); }
  void set_relax_step_ns(std::int64_t ns) { relax_step_.store(ns, std::memory_order_relaxed); }

 private:
  // Relaxed ordering throughout: readers need only a coherent value of each reading, and
  // tests that drive the clock from one thread synchronise by other means.
  std::atomic<std::int64_t> wall_;
  std::atomic<std::int64_t> steady_{0};
  std::atomic<std::int64_t> relax_step_;
};

}  // namespace idbench
