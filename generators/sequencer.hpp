// sequencer.hpp — the one (tick, sequence) state machine every time-based generator shares.
//
// Two pieces, as Rust `uuid` and Boost.Uuid split them:
//   * `next_state(old, now, fresh_seq, policy, space)` — a pure function: given the last
//     issued (tick, seq) and the clock reading in ticks, decide what to issue, or to wait,
//     or to refuse. It is the whole of the algorithm; tests drive it directly.
//   * `advance(...)` — the loop that reads a Clock, asks `next_state`, spins or throws, and
//     commits the new state through callbacks. The mutex variant commits by assignment under
//     its lock, the CAS variant by compare-exchange, the thread-local variant into its slot:
//     the same core serves every concurrency variant.
//
// Sequence overflow within one tick spins until the next tick (no sleep: the next tick is at
// most one unit away, and a sleep would overshoot it by a scheduler quantum).
//
// Thread safety: `next_state` is pure; `advance` is as safe as the callbacks it is given.
#pragma once

#include <concepts>
#include <cstdint>
#include <string>

#include "generators/clock.hpp"
#include "generators/errors.hpp"
#include "generators/policy.hpp"

namespace idbench {

// The last (tick, seq) a generator issued from. `tick == kNoTick` before the first ID.
struct TickState {
  static constexpr std::int64_t kNoTick = -1;
  std::int64_t tick = kNoTick;
  std::uint64_t seq = 0;
  bool operator==(const TickState&) const = default;
};

// What the state may range over, and how a tick maps to Unix time.
struct SequenceSpace {
  std::uint64_t max_seq = 0;
  std::int64_t max_tick = 0;
  std::int64_t unit_ms = 1;
  std::int64_t epoch_unix_ms = 0;
  // The last date and the name used in an EpochExhausted message.
  std::int64_t last_unix_ms = 0;
  std::string format_name;

  std::int64_t tick_of_wall_ns(std::int64_t wall_ns) const {
    return Clock::floor_div(Clock::floor_div(wall_ns, 1'000'000) - epoch_unix_ms, unit_ms);
  }
};

enum class Action {
  issue,           // `next` is the state to issue from
  spin_next_tick,  // sequence exhausted in this tick: wait for the clock to reach the next
  wait_for_clock,  // clock behind; policy waits
  refuse,          // clock behind; policy refuses (`behind_ticks`)
  wait_too_long,   // clock behind by more than the bounded wait
  borrow_too_far,  // borrowing would run beyond the bound (`ahead_ticks`)
  out_of_range,    // clock before the epoch or past the layout's lifetime
};

struct Decision {
  Action action = Action::issue;
  TickState next;
  std::int64_t behind_ticks = 0;
  std::int64_t ahead_ticks = 0;
};

// The pure core. `now` is the clock in ticks since the epoch (it may be out of range);
// `fresh_seq()` gives where a new tick's sequence starts (0 for Snowflake, random for UUIDv7),
// and is called only when a new tick starts: a random seed is drawn once per tick, not per ID.
template <std::invocable FreshSeq>
constexpr Decision next_state(TickState old, std::int64_t now, FreshSeq&& fresh_seq,
                              const Policy& policy, const SequenceSpace& space) {
  if (now < 0 || now > space.max_tick) return {Action::out_of_range, old, 0, 0};
  if (old.tick == TickState::kNoTick || now > old.tick) {
    return {Action::issue, {now, fresh_seq()}};
  }

  const auto bump = [&](TickState s) -> TickState {
    if (s.seq < space.max_seq) return {s.tick, s.seq + 1};
    return {s.tick + 1, fresh_seq()};  // only the borrow policy moves the tick forward
  };
  const auto borrow = [&]() -> Decision {
    const TickState next = bump(old);
    const std::int64_t ahead = next.tick - now;
    if (next.tick > space.max_tick) return {Action::out_of_range, old, 0, ahead};
    if (ahead * space.unit_ms > policy.bound_ms) {
      // Load alone (a spent sequence while the last tick is within the bound) waits for the
      // clock, as Sonyflake sleeps: failing would turn every burst above the format cap into
      // errors. Only a last tick already beyond the bound, i.e. a backward step larger than
      // the bound, fails.
      if ((old.tick - now) * space.unit_ms <= policy.bound_ms) {
        return {Action::spin_next_tick, old, 0, ahead};
      }
      return {Action::borrow_too_far, old, 0, ahead};
    }
    return {Action::issue, next, 0, ahead};
  };

  if (now == old.tick) {
    if (old.seq < space.max_seq) return {Action::issue, {old.tick, old.seq + 1}};
    return policy.kind == PolicyKind::borrow ? borrow() : Decision{Action::spin_next_tick, old};
  }

  // The clock is behind the last tick issued.
  const std::int64_t behind = old.tick - now;
  switch (policy.kind) {
    case PolicyKind::refuse:
      return {Action::refuse, old, behind};
    case PolicyKind::wait:
      return {Action::wait_for_clock, old, behind};
    case PolicyKind::bounded_wait:
      // Waiting out a step longer than the bound is doomed: fail now, as Leaf does above 5 ms.
      return {
          behind * space.unit_ms > policy.bound_ms ? Action::wait_too_long : Action::wait_for_clock,
          old, behind};
    case PolicyKind::borrow:
      return borrow();
    case PolicyKind::unsafe:
      return {Action::issue, {now, fresh_seq()}, behind};
  }
  return {Action::refuse, old, behind};
}

// The same with a constant first sequence value.
constexpr Decision next_state(TickState old, std::int64_t now, std::uint64_t fresh_seq,
                              const Policy& policy, const SequenceSpace& space) {
  return next_state(
      old, now, [fresh_seq] { return fresh_seq; }, policy, space);
}

// Throws EpochExhausted for a clock reading (in ticks) outside `space`.
[[noreturn]] void throw_out_of_range(std::int64_t now_tick, const SequenceSpace& space);

// Reads `clock` until `next_state` says issue, committing through `commit(old, next)` (which
// returns false when another thread moved the state first; then it decides again). Throws the
// policy's ClockError. `load()` returns the current state; `fresh()` a new tick's first seq.
template <class Load, class Commit, class Fresh>
TickState advance(Clock& clock, const Policy& policy, const SequenceSpace& space, Load&& load,
                  Commit&& commit, Fresh&& fresh) {
  std::int64_t wait_started_ns = -1;
  for (;;) {
    const TickState old = load();
    const std::int64_t now = space.tick_of_wall_ns(clock.wall_ns());
    const Decision d = next_state(old, now, fresh, policy, space);
    switch (d.action) {
      case Action::issue:
        if (commit(old, d.next)) return d.next;
        break;
      case Action::spin_next_tick:
        clock.relax();
        break;
      case Action::wait_for_clock:
        if (policy.kind == PolicyKind::bounded_wait) {
          // The bound is a duration, so it is measured on the steady clock.
          const std::int64_t steady = clock.steady_ns();
          if (wait_started_ns < 0) wait_started_ns = steady;
          if (steady - wait_started_ns > policy.bound_ms * 1'000'000) {
            throw WaitBoundExceeded(d.behind_ticks * space.unit_ms, policy.bound_ms);
          }
        }
        clock.relax();
        break;
      case Action::refuse:
        throw ClockMovedBackwards(d.behind_ticks * space.unit_ms);
      case Action::wait_too_long:
        throw WaitBoundExceeded(d.behind_ticks * space.unit_ms, policy.bound_ms);
      case Action::borrow_too_far:
        throw BorrowLimitExceeded(d.ahead_ticks * space.unit_ms, policy.bound_ms);
      case Action::out_of_range:
        // ahead_ticks is 0 when the clock itself is out of range, and how far borrowing
        // would go when it is borrowing that would pass the lifetime.
        throw_out_of_range(now + d.ahead_ticks, space);
    }
  }
}

}  // namespace idbench
