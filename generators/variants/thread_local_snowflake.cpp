// thread-local — per-thread Snowflake state: no shared write on the hot path.
//
// Disjoint ID spaces: each thread that calls next() claims a *slot*, and slot i issues with
// node id `node + i`. So a process with T threads consumes T node ids of the layout (on
// `twitter`, 1,024 node ids are then shared by fewer processes), and in exchange each thread
// has the full sequence space: T threads can reach T × the format cap of one node.
//
// A slot keeps its (tick, seq) state when its thread exits and is handed to the next thread
// that needs one, so a reused node id continues where it stopped instead of restarting the
// sequence inside a tick it already issued from (which would duplicate IDs).
#include <fmt/format.h>

#include <functional>
#include <mutex>
#include <vector>

#include "generators/registry.hpp"
#include "generators/snowflake.hpp"
#include "generators/thread_held.hpp"

namespace idbench {
namespace {

// One thread's state, written on every ID. Aligned to 128 bytes, not 64: the L2's adjacent-line
// prefetcher moves lines in 128-byte pairs, so a neighbour's slot in the other half of the pair
// bounced between the cores too (idbench-bench, wide, 2 threads, 4 interleaved pairs of 7
// repetitions: 48.4 -> 51.7 M IDs/s median; 2 ÷ 1 thread 1.89 -> 1.94).
struct alignas(128) Slot {
  TickState state;
  std::uint64_t node = 0;
  std::uint64_t node_part = 0;  // node's bits in place in an ID (Layout::Packer::node_part)
};
static_assert(sizeof(Slot) == 128);

// Owns the slots; shared with the threads holding them so a thread that outlives the
// generator can still hand its slot back.
class SlotPool {
 public:
  // `initial(node)`: the state a slot issuing as `node` starts from (its own stored
  // clock-sequence generations, under clock-sequence).
  SlotPool(std::uint64_t first_node, std::uint64_t max_node, Layout::Packer packer,
           std::function<TickState(std::uint64_t)> initial)
      : first_node_(first_node),
        max_node_(max_node),
        packer_(packer),
        initial_(std::move(initial)) {}

  // The mutex hands a slot from one thread to the next: the releasing thread's unlock
  // happens-before the claiming thread's lock, so the slot's state is seen whole.
  Slot* claim() {
    std::lock_guard<std::mutex> lock(mu_);
    if (!free_.empty()) {
      Slot* slot = free_.back();
      free_.pop_back();
      return slot;
    }
    const std::uint64_t node = first_node_ + slots_.size();
    if (node > max_node_) {
      throw NodeError(fmt::format(
          "thread-local: {} threads need node ids {}..{}, beyond the layout's last node id {}",
          slots_.size() + 1, first_node_, node, max_node_));
    }
    slots_.push_back(std::make_unique<Slot>());
    slots_.back()->state = initial_(node);
    slots_.back()->node = node;
    slots_.back()->node_part = packer_.node_part(node);
    return slots_.back().get();
  }
  void give_back(Slot* slot) {
    std::lock_guard<std::mutex> lock(mu_);
    free_.push_back(slot);
  }

 private:
  const std::uint64_t first_node_;
  const std::uint64_t max_node_;
  const Layout::Packer packer_;
  const std::function<TickState(std::uint64_t)> initial_;
  std::mutex mu_;
  std::vector<std::unique_ptr<Slot>> slots_;  // guarded by mu_
  std::vector<Slot*> free_;                   // guarded by mu_
};

// The slots this thread holds, one per live generator it has used; returned at thread exit.
thread_local ThreadHeld<SlotPool, Slot> held_slots;

template <TickUnit kUnit>
class ThreadLocalSnowflake {
 public:
  using id_type = std::uint64_t;
  explicit ThreadLocalSnowflake(const GeneratorOptions& opts)
      : cfg_(opts),
        serial_(next_generator_serial()),
        pool_(std::make_shared<SlotPool>(cfg_.node, cfg_.layout.max_node(), cfg_.packer,
                                         [opts, space = cfg_.space](std::uint64_t node) {
                                           return initial_state(opts, space, node);
                                         })) {}

  ~ThreadLocalSnowflake() {
    // Slots this thread holds for this generator go back now; other threads' entries keep the
    // pool alive and are dropped when those threads exit.
    held_slots.drop(serial_, /*give_back=*/true);
  }

  std::uint64_t next() {
    // The clock first: the slot is then not kept in a register across the clock's call.
    const std::int64_t now = read_ticks<kUnit>(*cfg_.clock, cfg_.space);
    Slot& slot = my_slot();
    // advance_from's first case, on the slot itself: the sequence alone moves, so nothing but
    // it is stored and no generation can be new (the state is this thread's alone).
    if (slot.state.tick == now && slot.state.seq < cfg_.space.max_seq) [[likely]] {
      ++slot.state.seq;
      return cfg_.encode_node_part(slot.state, slot.node_part);
    }
    const TickState issued = advance_from(
        now, *cfg_.clock, cfg_.policy, cfg_.space, [&] { return slot.state; },
        [&](const TickState& old, const TickState& next) {
          // A new generation is durable (per node id) before any ID carries it.
          store_if_new_generation(cfg_.generation_store.get(), slot.node, slot.state.gens,
                                  next.gens);
          commit_state(slot.state, old, next);  // `old` is slot.state: this thread's alone
          return true;
        },
        [] { return std::uint64_t{0}; });
    return cfg_.encode_node_part(issued, slot.node_part);
  }
  std::string format() const {
    return cfg_.format() + fmt::format(" (thread i uses node {}+i)", cfg_.node);
  }

 private:
  Slot& my_slot() {
    // One generator per thread is the common case: check the last one used first.
    thread_local std::uint64_t cached_serial = 0;
    thread_local Slot* cached_slot = nullptr;
    if (cached_serial == serial_) return *cached_slot;
    Slot* slot = held_slots.find(serial_);
    if (slot == nullptr) {
      slot = pool_->claim();
      held_slots.add(serial_, pool_, slot);
    }
    cached_serial = serial_;
    cached_slot = slot;
    return *slot;
  }

  const SnowflakeConfig cfg_;
  const std::uint64_t serial_;  // never reused, unlike an address
  std::shared_ptr<SlotPool> pool_;
};

}  // namespace

Variant describe_thread_local() {
  Variant v = snowflake_variant(
      "thread-local",
      "Snowflake state per thread, thread i issuing as node+i: no shared write per ID",
      NodeIds::per_thread, /*chaos_quick=*/false, factory_by_tick_unit<ThreadLocalSnowflake>());
  // On a layout with gen bits (the matrix gives it one) it keeps a clock sequence.
  v.defaults.clock_sequence = true;
  v.defaults.clock_sequence_quick = false;
  return v;
}

}  // namespace idbench
