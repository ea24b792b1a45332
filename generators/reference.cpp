// reference.cpp — the bench-only floors and the clock-under-lock mutex (reference.hpp).
#include "generators/reference.hpp"

#include "generators/mutex_snowflake.hpp"

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

}  // namespace

std::unique_ptr<Generator> make_no_clock_floor(const GeneratorOptions& opts) {
  return std::make_unique<ErasedGenerator<NoClockFloor>>(opts);
}
std::unique_ptr<Generator> make_clock_once_floor(const GeneratorOptions& opts) {
  return std::make_unique<ErasedGenerator<ClockOnceFloor>>(opts);
}
std::unique_ptr<Generator> make_clock_under_lock_mutex(const GeneratorOptions& opts) {
  return std::make_unique<ErasedGenerator<MutexSnowflake<ClockRead::under_lock>>>(opts);
}

}  // namespace idbench
