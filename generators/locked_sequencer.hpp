// locked_sequencer.hpp — the sequencer core behind one mutex: the synchronisation wrapper the
// mutex Snowflake, both UUIDv7 variants, UUIDv8 and UUIDv1/v6 share.
//
// Thread safety: thread-safe.
#pragma once

#include <memory>
#include <mutex>
#include <utility>

#include "generators/generator.hpp"
#include "generators/sequencer.hpp"
#include "generators/snowflake.hpp"

namespace idbench {

// Where the clock is read relative to the lock.
//   before_lock  outside it: the critical section is a compare and an assignment, and a reading
//                made stale by the lock's queue is read again under the lock only when the
//                state is ahead of it (sequencer.hpp, advance_from). What every variant uses.
//   under_lock   inside it, as Twitter's synchronized nextId() (2010) does: every caller queues
//                behind a clock read. Kept as the bench's reference (reference.hpp) to show
//                what the short critical section buys.
enum class ClockRead { before_lock, under_lock };

// `kUnit`: the space's tick unit (sequencer.hpp, TickUnit), or `any`.
template <ClockRead kRead = ClockRead::before_lock, TickUnit kUnit = TickUnit::any>
class LockedSequencer {
 public:
  // `opts` gives the clock, policy, node id and clock-sequence store; `space` the state space.
  LockedSequencer(SequenceSpace space, TickState initial, const GeneratorOptions& opts)
      : clock_(opts.clock),
        policy_(opts.policy),
        space_(std::move(space)),
        store_(opts.generation_store),
        node_(opts.node),
        state_(initial) {
    if (kUnit != TickUnit::any && tick_unit_of(space_) != kUnit) {
      throw Error("LockedSequencer: built for another tick unit than its space's");
    }
  }

  // The (tick, seq) to issue from; `fresh_seq()` starts a new tick (called under the lock,
  // only when a tick starts). Spins and waits holding the lock, as Twitter's synchronized
  // nextId() does: callers behind it wait too.
  // Always inlined, as advance_from is (sequencer.hpp): the state is returned by value.
  template <class FreshSeq>
  [[gnu::always_inline]] TickState next(FreshSeq&& fresh_seq) {
    if constexpr (kRead == ClockRead::before_lock) {
      const std::int64_t now = read_ticks<kUnit>(*clock_, space_);
      std::lock_guard<std::mutex> lock(mu_);
      return advance_from(now, *clock_, policy_, space_, load(), commit(), fresh_seq);
    } else {
      std::lock_guard<std::mutex> lock(mu_);
      return advance(*clock_, policy_, space_, load(), commit(), fresh_seq);
    }
  }

  const SequenceSpace& space() const { return space_; }
  const Policy& policy() const { return policy_; }

 private:
  // Both used under mu_.
  auto load() {
    return [this] { return state_; };
  }
  auto commit() {
    return [this](const TickState& old, const TickState& next) {
      // A new generation is durable before any ID carries it (under the lock, so stores
      // happen in the order the states do).
      store_if_new_generation(store_.get(), node_, state_.gens, next.gens);
      commit_state(state_, old, next);  // `old` is state_: it was loaded under the lock
      return true;
    };
  }

  const std::shared_ptr<Clock> clock_;
  const Policy policy_;
  const SequenceSpace space_;
  const std::shared_ptr<GenerationStore> store_;
  const std::uint64_t node_;
  std::mutex mu_;
  TickState state_;  // guarded by mu_
};

}  // namespace idbench
