// locked_sequencer.hpp — the sequencer core behind one mutex: the synchronisation wrapper the
// mutex Snowflake and both UUIDv7 variants share.
//
// Thread safety: thread-safe.
#pragma once

#include <memory>
#include <mutex>
#include <utility>

#include "generators/sequencer.hpp"

namespace idbench {

class LockedSequencer {
 public:
  LockedSequencer(std::shared_ptr<Clock> clock, Policy policy, SequenceSpace space,
                  TickState initial)
      : clock_(std::move(clock)), policy_(policy), space_(std::move(space)), state_(initial) {}

  // The (tick, seq) to issue from; `fresh_seq()` starts a new tick (called under the lock,
  // only when a tick starts). Spins and waits holding the lock, as Twitter's synchronized
  // nextId() does: callers behind it wait too.
  template <class FreshSeq>
  TickState next(FreshSeq&& fresh_seq) {
    std::lock_guard<std::mutex> lock(mu_);
    return advance(
        *clock_, policy_, space_, [&] { return state_; },
        [&](TickState, TickState next) {
          state_ = next;
          return true;
        },
        fresh_seq);
  }

  const SequenceSpace& space() const { return space_; }
  const Policy& policy() const { return policy_; }

 private:
  const std::shared_ptr<Clock> clock_;
  const Policy policy_;
  const SequenceSpace space_;
  std::mutex mu_;
  TickState state_;  // guarded by mu_
};

}  // namespace idbench
