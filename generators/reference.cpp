// reference.cpp — the bench-only floors and the clock-under-lock mutex (reference.hpp).
#include "generators/reference.hpp"

#include "generators/locked_sequencer.hpp"
#include "generators/snowflake.hpp"

namespace idbench {
namespace {

class NoClockFloor {
 public:
  using id_type = std::uint64_t;
  explicit NoClockFloor(const GeneratorOptions&) {}
  std::uint64_t next() {
    thread_local std::uint64_t counter = 0;
    return ++counter;
  }
  std::string format() const { return "floor: no clock (a per-thread counter)"; }
};

class ClockOnceFloor {
 public:
  using id_type = std::uint64_t;
  explicit ClockOnceFloor(const GeneratorOptions& opts) : clock_(opts.clock) {}
  std::uint64_t next() { return static_cast<std::uint64_t>(clock_->wall_ns()); }
  std::string format() const { return "floor: one wall-clock read per ID"; }

 private:
  const std::shared_ptr<Clock> clock_;
};

class ClockUnderLockMutex {
 public:
  using id_type = std::uint64_t;
  explicit ClockUnderLockMutex(const GeneratorOptions& opts)
      : cfg_(opts), core_(cfg_.space, cfg_.initial, opts) {}
  std::uint64_t next() {
    return cfg_.encode(core_.next([] { return std::uint64_t{0}; }), cfg_.node);
  }
  std::string format() const { return cfg_.format() + " (clock read under the lock)"; }

 private:
  const SnowflakeConfig cfg_;
  LockedSequencer<ClockRead::under_lock> core_;
};

}  // namespace

std::unique_ptr<Generator> make_no_clock_floor(const GeneratorOptions& opts) {
  return std::make_unique<ErasedGenerator<NoClockFloor>>(opts);
}
std::unique_ptr<Generator> make_clock_once_floor(const GeneratorOptions& opts) {
  return std::make_unique<ErasedGenerator<ClockOnceFloor>>(opts);
}
std::unique_ptr<Generator> make_clock_under_lock_mutex(const GeneratorOptions& opts) {
  return std::make_unique<ErasedGenerator<ClockUnderLockMutex>>(opts);
}

}  // namespace idbench
