// minimal.cpp — the minimal designs (reference.hpp): each scheme in its shortest correct form,
// hard-coded to the Twitter layout and the refuse policy, as the floor its variant's instruction
// count is compared with.
#include <sys/random.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <mutex>
#include <system_error>

#include "generators/errors.hpp"
#include "generators/reference.hpp"
#include "generators/uuid_format.hpp"

namespace idbench {
namespace {

// Twitter's layout: 41-bit ms since its epoch, a 10-bit node, a 12-bit sequence.
constexpr std::uint64_t kTwitterEpochMs = 1'288'834'974'657;
constexpr std::uint64_t kMaxSeq = 0xFFF;

std::uint64_t twitter_ms(const Clock& clock) {
  return static_cast<std::uint64_t>(clock.wall_ns()) / 1'000'000 - kTwitterEpochMs;
}

std::uint64_t node_field_of(const GeneratorOptions& opts) { return (opts.node & 0x3FF) << 12; }

// The (ms, seq) rule of a Snowflake under `refuse`, for the designs that hold the state alone
// (under a lock, or per thread): false when the sequence of `ms` is spent (wait for the next ms).
// Throws when the clock is behind; `reread` gives a fresh reading first, since `ms` may have
// been read before another thread issued a later ms.
template <class Reread>
bool step_refusing(std::uint64_t& last_ms, std::uint64_t& seq, std::uint64_t ms, Reread&& reread) {
  if (ms > last_ms) {
    last_ms = ms;
    seq = 0;
    return true;
  }
  if (ms == last_ms) return seq < kMaxSeq ? (++seq, true) : false;
  const std::uint64_t again = reread();
  if (again < last_ms) throw ClockMovedBackwards(static_cast<std::int64_t>(last_ms - again));
  return false;
}

// One compare-exchange of (ms << 12 | seq).
class MinimalCas {
 public:
  using id_type = std::uint64_t;
  explicit MinimalCas(const GeneratorOptions& opts)
      : clock_(opts.clock), node_(node_field_of(opts)) {}
  std::uint64_t next() {
    std::uint64_t ms = twitter_ms(*clock_);
    std::uint64_t old = word_.load(std::memory_order_relaxed);
    for (;;) {
      std::uint64_t last_ms = old >> 12;
      std::uint64_t seq = old & kMaxSeq;
      if (!step_refusing(last_ms, seq, ms, [&] { return twitter_ms(*clock_); })) {
        ms = twitter_ms(*clock_);
        old = word_.load(std::memory_order_relaxed);
        continue;
      }
      const std::uint64_t next = last_ms << 12 | seq;
      if (word_.compare_exchange_weak(old, next, std::memory_order_relaxed)) {
        return last_ms << 22 | node_ | seq;
      }
    }
  }
  std::string format() const { return "minimal cas Snowflake (twitter, refuse)"; }

 private:
  const std::shared_ptr<Clock> clock_;
  const std::uint64_t node_;
  std::atomic<std::uint64_t> word_{0};
};

// One std::mutex, the clock read outside it.
class MinimalMutex {
 public:
  using id_type = std::uint64_t;
  explicit MinimalMutex(const GeneratorOptions& opts)
      : clock_(opts.clock), node_(node_field_of(opts)) {}
  std::uint64_t next() {
    std::uint64_t ms = twitter_ms(*clock_);
    const std::lock_guard<std::mutex> lock(mu_);
    while (!step_refusing(last_ms_, seq_, ms, [&] { return twitter_ms(*clock_); })) {
      ms = twitter_ms(*clock_);
    }
    return last_ms_ << 22 | node_ | seq_;
  }
  std::string format() const { return "minimal mutex Snowflake (twitter, refuse)"; }

 private:
  const std::shared_ptr<Clock> clock_;
  const std::uint64_t node_;
  std::mutex mu_;
  std::uint64_t last_ms_ = 0;  // guarded by mu_
  std::uint64_t seq_ = 0;      // guarded by mu_
};

// Per-thread state, no shared write. Every thread issues as the same node here: a floor's IDs
// prove nothing (the variant gives each thread its own node id).
class MinimalPerThread {
 public:
  using id_type = std::uint64_t;
  explicit MinimalPerThread(const GeneratorOptions& opts)
      : clock_(opts.clock), node_(node_field_of(opts)) {}
  std::uint64_t next() {
    thread_local std::uint64_t last_ms = 0;
    thread_local std::uint64_t seq = 0;
    std::uint64_t ms = twitter_ms(*clock_);
    while (!step_refusing(last_ms, seq, ms, [&] { return twitter_ms(*clock_); }))
      ms = twitter_ms(*clock_);
    return last_ms << 22 | node_ | seq;
  }
  std::string format() const { return "minimal per-thread Snowflake (twitter, refuse)"; }

 private:
  const std::shared_ptr<Clock> clock_;
  const std::uint64_t node_;
};

// 4 KiB of getrandom per thread, handed out 32 bits at a time.
std::uint32_t random32() {
  thread_local std::array<std::uint32_t, 1024> words;
  thread_local std::size_t used = words.size();
  if (used == words.size()) {
    if (getrandom(words.data(), sizeof words, 0) != static_cast<ssize_t>(sizeof words)) {
      throw std::system_error(errno, std::generic_category(), "getrandom");
    }
    used = 0;
  }
  return words[used++];
}

// RFC 9562 §6.2 method 1: a 42-bit counter seeded with 41 random bits each new ms, 32 fresh
// random bits per ID; behind one std::mutex, as every generator's next() is thread-safe.
class MinimalUuidV7 {
 public:
  using id_type = Uuid;
  explicit MinimalUuidV7(const GeneratorOptions& opts) : clock_(opts.clock) {}
  Uuid next() {
    const std::uint64_t tail = random32();
    std::uint64_t ms = unix_ms();
    std::uint64_t counter = 0;
    {
      const std::lock_guard<std::mutex> lock(mu_);
      for (;;) {
        if (ms > last_ms_) {
          last_ms_ = ms;
          counter_ = (std::uint64_t{random32()} << 32 | random32()) >> 23;  // 41 bits
          break;
        }
        if (ms == last_ms_ && counter_ < kMaxCounter) {
          ++counter_;
          break;
        }
        // Spent, or behind: a reading taken now (the first may predate another thread's ID).
        const std::uint64_t again = unix_ms();
        if (again < last_ms_)
          throw ClockMovedBackwards(static_cast<std::int64_t>(last_ms_ - again));
        ms = again;
      }
      ms = last_ms_;
      counter = counter_;
    }
    return uuid_format::v7(ms, counter >> 30,
                           (counter & ((std::uint64_t{1} << 30) - 1)) << 32 | tail);
  }
  std::string format() const { return "minimal UUIDv7 (method 1, refuse)"; }

 private:
  std::uint64_t unix_ms() const {
    return static_cast<std::uint64_t>(clock_->wall_ns()) / 1'000'000;
  }
  static constexpr std::uint64_t kMaxCounter = (std::uint64_t{1} << 42) - 1;
  const std::shared_ptr<Clock> clock_;
  std::mutex mu_;
  std::uint64_t last_ms_ = 0;  // guarded by mu_
  std::uint64_t counter_ = 0;  // guarded by mu_
};

}  // namespace

std::unique_ptr<Generator> make_minimal_cas(const GeneratorOptions& opts) {
  return std::make_unique<ErasedGenerator<MinimalCas>>(opts);
}
std::unique_ptr<Generator> make_minimal_mutex(const GeneratorOptions& opts) {
  return std::make_unique<ErasedGenerator<MinimalMutex>>(opts);
}
std::unique_ptr<Generator> make_minimal_per_thread(const GeneratorOptions& opts) {
  return std::make_unique<ErasedGenerator<MinimalPerThread>>(opts);
}
std::unique_ptr<Generator> make_minimal_uuidv7(const GeneratorOptions& opts) {
  return std::make_unique<ErasedGenerator<MinimalUuidV7>>(opts);
}

}  // namespace idbench
