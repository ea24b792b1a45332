// reference.cpp — the bench-only floors and the clock-under-lock mutex (reference.hpp).
#include "generators/reference.hpp"

#include <atomic>
#include <mutex>

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

// The clock-once floor plus the commit of a design that keeps its state behind one std::mutex:
// the reading is stored under the lock. No sequence, no policy: what is left is the lock.
class ClockOnceLockFloor {
 public:
  using id_type = std::uint64_t;
  explicit ClockOnceLockFloor(const GeneratorOptions& opts) : clock_(opts.clock) {}
  std::uint64_t next() {
    const auto reading = static_cast<std::uint64_t>(clock_->wall_ns());
    const std::lock_guard<std::mutex> lock(mu_);
    last_ = reading;
    return reading;
  }
  std::string format() const { return "floor: one wall-clock read and one std::mutex per ID"; }

 private:
  const std::shared_ptr<Clock> clock_;
  std::mutex mu_;
  std::uint64_t last_ = 0;  // guarded by mu_
};

// The clock-once floor plus the commit of a design that keeps its state in one atomic word: a
// compare-exchange of the loaded word for the reading, retried from the word that won.
class ClockOnceCasFloor {
 public:
  using id_type = std::uint64_t;
  explicit ClockOnceCasFloor(const GeneratorOptions& opts) : clock_(opts.clock) {}
  std::uint64_t next() {
    const auto reading = static_cast<std::uint64_t>(clock_->wall_ns());
    // Relaxed, as cas's own compare-exchange: nothing is published through the word.
    std::uint64_t expected = word_.load(std::memory_order_relaxed);
    while (!word_.compare_exchange_weak(expected, reading, std::memory_order_relaxed,
                                        std::memory_order_relaxed)) {
    }
    return reading;
  }
  std::string format() const {
    return "floor: one wall-clock read and one compare-exchange per ID";
  }

 private:
  const std::shared_ptr<Clock> clock_;
  std::atomic<std::uint64_t> word_{0};
};

}  // namespace

std::unique_ptr<Generator> make_clock_once_lock_floor(const GeneratorOptions& opts) {
  return std::make_unique<ErasedGenerator<ClockOnceLockFloor>>(opts);
}
std::unique_ptr<Generator> make_clock_once_cas_floor(const GeneratorOptions& opts) {
  return std::make_unique<ErasedGenerator<ClockOnceCasFloor>>(opts);
}
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
