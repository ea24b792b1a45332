// thread_held.hpp — what one thread holds from each live generator it has called: a per-thread
// item (a Snowflake slot, an external program instance) taken from the generator's pool, and
// handed back to the pool when the thread exits.
//
//   thread_local ThreadHeld<SlotPool, Slot> held;      // one per thread and per item kind
//   const std::uint64_t serial = next_generator_serial();
//   Slot* s = held.find(serial);                       // nullptr: not yet held
//   if (!s) { s = pool->claim(); held.add(serial, pool, s); }
//   held.drop(serial, /*give_back=*/true);             // the generator ends on this thread
//
// Why a serial rather than the generator's address: an address is reused by the next
// generator, a serial never is, so a thread never mistakes a new generator's item for an old.
// The pool is shared (std::shared_ptr) with every thread holding one of its items, so a thread
// that exits after the generator is gone can still hand its item back. `Pool` has
// `void give_back(Item*)`.
//
// Thread safety: a ThreadHeld belongs to its thread (thread_local); the pool's give_back() is
// called from the holding thread and must be thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace idbench {

// A serial for a new generator: never 0, never reused within the process.
inline std::uint64_t next_generator_serial() {
  static std::atomic<std::uint64_t> next{1};
  // Relaxed: only uniqueness matters, and fetch_add gives that under any order.
  return next.fetch_add(1, std::memory_order_relaxed);
}

template <class Pool, class Item>
class ThreadHeld {
 public:
  ThreadHeld() = default;
  ThreadHeld(const ThreadHeld&) = delete;
  ThreadHeld& operator=(const ThreadHeld&) = delete;
  // The thread exits: every item goes back to its pool.
  ~ThreadHeld() {
    for (Held& h : held_) h.pool->give_back(h.item);
  }

  // The item this thread holds from generator `serial`; nullptr when none.
  Item* find(std::uint64_t serial) const {
    for (const Held& h : held_) {
      if (h.serial == serial) return h.item;
    }
    return nullptr;
  }
  void add(std::uint64_t serial, std::shared_ptr<Pool> pool, Item* item) {
    held_.push_back({serial, std::move(pool), item});
  }
  // Forgets what this thread holds from generator `serial`, handing it back first when
  // `give_back` (the generator may instead end all its items itself).
  void drop(std::uint64_t serial, bool give_back) {
    std::erase_if(held_, [&](const Held& h) {
      if (h.serial != serial) return false;
      if (give_back) h.pool->give_back(h.item);
      return true;
    });
  }

 private:
  struct Held {
    std::uint64_t serial;
    std::shared_ptr<Pool> pool;
    Item* item;
  };
  std::vector<Held> held_;
};

}  // namespace idbench
