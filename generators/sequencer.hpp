// sequencer.hpp — the one (tick, sequence) state machine every time-based generator shares.
//
// Two pieces, as Rust `uuid` and Boost.Uuid split them:
//   * `next_state(old, now, fresh_seq, policy, space)` — a pure function: given the last
//     issued (tick, seq) and the clock reading in ticks, decide what to issue, or to wait,
//     or to refuse. It is the whole of the algorithm; tests drive it directly.
//   * `advance(...)` — the loop that reads a Clock, asks `next_state`, spins or throws, and
//     commits the new state through callbacks. The mutex variant commits by assignment under
//     its lock, the CAS variant by compare-exchange, the thread-local variant into its slot:
//     the same core serves every concurrency variant. It reads the clock once per ID, before
//     the state, and again only when the state is ahead of that reading (`advance_from`).
//
// clock-sequence (DCE 1994) is the one policy that changes more than (tick, seq): on a step back
// it moves to the next generation (`Generations` below says when that is safe) and issues at
// the clock's time; every variant carries the generation in its ID (a UUID's clock sequence,
// a layout's gen field).
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

// What the clock-sequence policy remembers besides the last (tick, seq); every other policy
// carries it unchanged. Generations (a UUID's 14-bit clock sequence, a layout's `gen` bits)
// are used in a cycle, gen + 1 after gen. A *lap* is the run of generations lap_first … gen
// used since the lap began; every generation outside it issued only ticks <= `floor`, so
// bumping to gen + 1 at clock reading `now` is safe exactly when gen + 1 is outside the lap
// (gen + 1 != lap_first) and now > floor. When the lap holds every generation it is
// *exhausted*: the policy waits for the clock, and the first ID issued past `high` (the
// highest tick ever issued, under any generation) renews it: lap_first = gen, floor = high.
struct Generations {
  std::uint64_t gen = 0;
  std::uint64_t lap_first = 0;
  std::int64_t floor = -1;
  std::int64_t high = -1;
  bool operator==(const Generations&) const = default;
};

// The last (tick, seq) a generator issued from. `tick == kNoTick` before the first ID.
struct TickState {
  static constexpr std::int64_t kNoTick = -1;
  std::int64_t tick = kNoTick;
  std::uint64_t seq = 0;
  Generations gens{};
  bool operator==(const TickState&) const = default;
};

// `to = from`, one 8-byte field at a time. Where a variant commits a decided state into its own
// (once per ID), a whole-struct copy is done in 16-byte pieces, and each piece loaded right
// after the 8-byte stores that built it stalls store forwarding (perf annotate: ~8 ns per ID).
inline void assign_state(TickState& to, const TickState& from) {
  to.tick = from.tick;
  to.seq = from.seq;
  to.gens.gen = from.gens.gen;
  to.gens.lap_first = from.gens.lap_first;
  to.gens.floor = from.gens.floor;
  to.gens.high = from.gens.high;
}

// `to = next` where `to` holds `old` (the state `next` was decided from): the sequence always,
// the tick and generations only when they differ from old's. Inlined where `next` is built from
// `old` with a new sequence (the common case of every ID), the comparisons fold away and one
// field is stored instead of six.
inline void commit_state(TickState& to, const TickState& old, const TickState& next) {
  to.seq = next.seq;
  if (next.tick != old.tick || !(next.gens == old.gens)) assign_state(to, next);
}

// What the state may range over, and how a tick maps to Unix time.
struct SequenceSpace {
  std::uint64_t max_seq = 0;
  std::int64_t max_tick = 0;
  std::int64_t unit_ms = 1;
  std::int64_t epoch_unix_ms = 0;
  // The last date and the name used in an EpochExhausted message.
  std::int64_t last_unix_ms = 0;
  std::string format_name;

  // Generations 0 … max_gen for the clock-sequence policy: 0x3FFF for a UUID's 14-bit clock
  // sequence, 2^gen_bits − 1 for a layout; 0 (one generation) makes clock-sequence wait.
  std::uint64_t max_gen = 0;
  // Sub-ms ticks (UUIDv1/v6: 100 ns since 1582-10-15): when > 0 a tick is `ns_per_tick` ns
  // (a divisor of 10^6) and Unix time 0 is tick `ticks_at_unix_epoch`; unit_ms and
  // epoch_unix_ms are then unused.
  std::int64_t ns_per_tick = 0;
  std::int64_t ticks_at_unix_epoch = 0;

  // Runs once per ID. A division by a run-time divisor is a 64-bit idiv (tens of cycles); the
  // common units (1 ms, and UUIDv1/v6's 100 ns) divide by constants, which compile to a
  // multiply and shifts.
  // A clock after 1970 (every real one) divides unsigned, with no rounding fix-up.
  std::int64_t tick_of_wall_ns(std::int64_t wall_ns) const {
    if (ns_per_tick == 0) {
      const std::int64_t unix_ms =
          wall_ns >= 0 ? static_cast<std::int64_t>(static_cast<std::uint64_t>(wall_ns) / 1'000'000)
                       : Clock::floor_div(wall_ns, 1'000'000);
      const std::int64_t ms = unix_ms - epoch_unix_ms;
      return unit_ms == 1 ? ms : Clock::floor_div(ms, unit_ms);
    }
    const std::int64_t ticks = ns_per_tick == 100 ? Clock::floor_div(wall_ns, 100)
                                                  : Clock::floor_div(wall_ns, ns_per_tick);
    return ticks + ticks_at_unix_epoch;
  }
  // A duration of `ticks` (>= 0) in whole ms, for messages and bounds: sub-ms ticks round
  // down, as a 1 ms layout reports a clock in the same ms as 0 ms behind.
  constexpr std::int64_t ms_of_ticks(std::int64_t ticks) const {
    if (ns_per_tick == 0) return ticks * unit_ms;
    return ticks / (1'000'000 / ns_per_tick);
  }
  // The Unix ms a tick begins in (any tick: only messages use it).
  std::int64_t unix_ms_of_tick(std::int64_t tick) const {
    if (ns_per_tick > 0) {
      return Clock::floor_div(tick - ticks_at_unix_epoch, 1'000'000 / ns_per_tick);
    }
    return epoch_unix_ms + tick * unit_ms;
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

// The state after issuing (tick, seq) from `old`, in old's generation. Under clock-sequence
// it also keeps the highest tick issued, and renews an exhausted lap once an ID is issued past
// every tick issued before (see Generations).
constexpr TickState issued_at(const TickState& old, std::int64_t tick, std::uint64_t seq,
                              const Policy& policy, const SequenceSpace& space) {
  TickState s{tick, seq, old.gens};
  if (policy.kind != PolicyKind::clock_sequence) return s;
  const std::uint64_t next_gen = s.gens.gen == space.max_gen ? 0 : s.gens.gen + 1;
  if (tick > s.gens.high && next_gen == s.gens.lap_first) {
    s.gens.lap_first = s.gens.gen;
    s.gens.floor = s.gens.high;
  }
  if (tick > s.gens.high) s.gens.high = tick;
  return s;
}

// clock-sequence with the clock behind the last tick: issue at the clock's time under the next
// generation if no ID of (now, next generation) can exist; else wait (see Generations).
template <std::invocable FreshSeq>
constexpr Decision change_clock_sequence(const TickState& old, std::int64_t now,
                                         FreshSeq&& fresh_seq, const Policy& policy,
                                         const SequenceSpace& space) {
  const std::int64_t behind = old.tick - now;
  const std::uint64_t next_gen = old.gens.gen == space.max_gen ? 0 : old.gens.gen + 1;
  if (next_gen == old.gens.lap_first || now <= old.gens.floor) {
    return {Action::wait_for_clock, old, behind};
  }
  TickState next = issued_at(old, now, fresh_seq(), policy, space);
  next.gens.gen = next_gen;
  return {Action::issue, next, behind};
}

// The pure core. `now` is the clock in ticks since the epoch (it may be out of range);
// `fresh_seq()` gives where a new tick's sequence starts (0 for Snowflake, random for UUIDv7),
// and is called only when a new tick starts: a random seed is drawn once per tick, not per ID.
template <std::invocable FreshSeq>
constexpr Decision next_state(TickState old, std::int64_t now, FreshSeq&& fresh_seq,
                              const Policy& policy, const SequenceSpace& space) {
  if (now < 0 || now > space.max_tick) return {Action::out_of_range, old, 0, 0};
  if (old.tick == TickState::kNoTick || now > old.tick) {
    return {Action::issue, issued_at(old, now, fresh_seq(), policy, space)};
  }

  const auto bump = [&](TickState s) -> TickState {
    if (s.seq < space.max_seq) return {s.tick, s.seq + 1, s.gens};
    return {s.tick + 1, fresh_seq(), s.gens};  // only the borrow policy moves the tick forward
  };
  const auto borrow = [&]() -> Decision {
    const TickState next = bump(old);
    const std::int64_t ahead = next.tick - now;
    if (next.tick > space.max_tick) return {Action::out_of_range, old, 0, ahead};
    if (space.ms_of_ticks(ahead) > policy.bound_ms) {
      // Load alone (a spent sequence while the last tick is within the bound) waits for the
      // clock, as Sonyflake sleeps: failing would turn every burst above the format cap into
      // errors. Only a last tick already beyond the bound, i.e. a backward step larger than
      // the bound, fails.
      if (space.ms_of_ticks(old.tick - now) <= policy.bound_ms) {
        return {Action::spin_next_tick, old, 0, ahead};
      }
      return {Action::borrow_too_far, old, 0, ahead};
    }
    return {Action::issue, next, 0, ahead};
  };

  if (now == old.tick) {
    if (old.seq < space.max_seq) return {Action::issue, {old.tick, old.seq + 1, old.gens}};
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
      return {space.ms_of_ticks(behind) > policy.bound_ms ? Action::wait_too_long
                                                          : Action::wait_for_clock,
              old, behind};
    case PolicyKind::borrow:
      return borrow();
    case PolicyKind::unsafe:
      return {Action::issue, issued_at(old, now, fresh_seq(), policy, space), behind};
    case PolicyKind::clock_sequence:
      return change_clock_sequence(old, now, fresh_seq, policy, space);
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

// The tick of a space, as a variant knows it from construction on: a variant instantiated for
// its unit reads the clock with constants, not with SequenceSpace::tick_of_wall_ns's branches
// on the unit (once per ID).
//   one_ms       1 ms ticks since `epoch_unix_ms` (every preset layout, UUIDv7 and v8)
//   hundred_ns   100 ns ticks, `ticks_at_unix_epoch` at Unix time 0 (UUIDv1 and v6)
//   any          whatever the space says
enum class TickUnit { one_ms, hundred_ns, any };

constexpr TickUnit tick_unit_of(const SequenceSpace& space) {
  if (space.ns_per_tick == 0 && space.unit_ms == 1) return TickUnit::one_ms;
  if (space.ns_per_tick == 100) return TickUnit::hundred_ns;
  return TickUnit::any;
}

// The clock in ticks of `space`; `U` is tick_unit_of(space) or `any`.
template <TickUnit U = TickUnit::any>
inline std::int64_t read_ticks(const Clock& clock, const SequenceSpace& space) {
  const std::int64_t wall_ns = clock.wall_ns();
  if constexpr (U == TickUnit::one_ms) {
    if (wall_ns >= 0) [[likely]] {
      return static_cast<std::int64_t>(static_cast<std::uint64_t>(wall_ns) / 1'000'000) -
             space.epoch_unix_ms;
    }
  } else if constexpr (U == TickUnit::hundred_ns) {
    if (wall_ns >= 0) [[likely]] {
      return static_cast<std::int64_t>(static_cast<std::uint64_t>(wall_ns) / 100) +
             space.ticks_at_unix_epoch;
    }
  }
  return space.tick_of_wall_ns(wall_ns);
}

// Decides from the clock reading `now` (ticks) until `next_state` says issue, committing through
// `commit(old, next)`, and throws the policy's ClockError. `load()` returns the current state;
// `fresh()` a new tick's first seq. `commit` returns false when another thread moved the state
// first, after putting that newer state into `old`.
//
// The retry rule: one clock reading per ID, taken before the state is loaded (outside a lock,
// before a compare-exchange), and read again only when the state is *ahead* of it. A reading
// taken before the state was loaded may be stale: another thread may have issued from a later
// reading in between, without the clock going back. So a state ahead of a stale reading is no
// regression until a reading taken after the state was loaded says so, and that second reading
// settles it: `refuse` stays exact. A state at or behind the reading needs no new reading (the
// ID is issued at the reading's tick, or the next sequence of the state's), and neither does a
// lost compare-exchange (decide again from the state that won, with the same reading).
// Spinning and waiting load the state, then read the clock, so their readings are never stale.
//
// advance_from after its common cases: decides from the state loaded now (after the reading
// `now`, so the rule above holds; after a lost compare-exchange it is at least as new as the
// state that won) until next_state says issue and the commit holds.
template <class Load, class Commit, class Fresh>
[[gnu::noinline]] TickState advance_rest(std::int64_t now, Clock& clock, const Policy& policy,
                                         const SequenceSpace& space, Load& load, Commit& commit,
                                         Fresh& fresh) {
  TickState old = load();
  std::int64_t wait_started_ns = -1;
  bool read_after_load = false;
  for (;;) {
    if (old.tick > now && !read_after_load) {
      now = read_ticks(clock, space);
      read_after_load = true;
    }
    const Decision d = next_state(old, now, fresh, policy, space);
    switch (d.action) {
      case Action::issue:
        if (commit(old, d.next)) return d.next;
        read_after_load = false;  // `old` is the state that won: `now` predates it
        continue;
      case Action::spin_next_tick:
        break;
      case Action::wait_for_clock:
        if (policy.kind == PolicyKind::bounded_wait) {
          // The bound is a duration, so it is measured on the steady clock.
          const std::int64_t steady = clock.steady_ns();
          if (wait_started_ns < 0) wait_started_ns = steady;
          if (steady - wait_started_ns > policy.bound_ms * 1'000'000) {
            throw WaitBoundExceeded(space.ms_of_ticks(d.behind_ticks), policy.bound_ms);
          }
        }
        break;
      case Action::refuse:
        throw ClockMovedBackwards(space.ms_of_ticks(d.behind_ticks));
      case Action::wait_too_long:
        throw WaitBoundExceeded(space.ms_of_ticks(d.behind_ticks), policy.bound_ms);
      case Action::borrow_too_far:
        throw BorrowLimitExceeded(space.ms_of_ticks(d.ahead_ticks), policy.bound_ms);
      case Action::out_of_range:
        // ahead_ticks is 0 when the clock itself is out of range, and how far borrowing
        // would go when it is borrowing that would pass the lifetime.
        throw_out_of_range(now + d.ahead_ticks, space);
    }
    // Spinning or waiting for time to pass: a new state, then a reading no older than it.
    clock.relax();
    old = load();
    now = read_ticks(clock, space);
    read_after_load = true;
  }
}

// The common cases are always inlined into the variant's next(): called out of line, the 48-byte
// state it returns is copied through the stack in 16-byte loads right after the 8-byte stores
// that built it, a store-forwarding stall on every ID (perf annotate: ~half of its own time).
// The rest (a spent sequence, a clock behind, a lost compare-exchange) is advance_rest, out of
// line, so that the registers and the stack frame it needs are not paid on every ID.
template <class Load, class Commit, class Fresh>
[[gnu::always_inline]] inline TickState advance_from(std::int64_t now, Clock& clock,
                                                     const Policy& policy,
                                                     const SequenceSpace& space, Load&& load,
                                                     Commit&& commit, Fresh&& fresh) {
  TickState old = load();
  // The common cases, first: the clock in the last tick and its sequence not spent, or the
  // clock past the last tick and in range. Every policy issues as next_state does then, so
  // this needs no branch on the policy; a lost compare-exchange goes on below from the state
  // that won, and everything else (a spent sequence, a clock behind) is the loop's.
  if (old.tick == now && old.seq < space.max_seq) [[likely]] {
    const TickState next{old.tick, old.seq + 1, old.gens};
    if (commit(old, next)) return next;
  } else if (now > old.tick && now <= space.max_tick) {
    // The clock past the last tick (every ID of a sub-ms tick): the same for every policy too.
    const TickState next = issued_at(old, now, fresh(), policy, space);
    if (commit(old, next)) return next;
  }
  return advance_rest(now, clock, policy, space, load, commit, fresh);
}

// The same from a reading taken now.
template <class Load, class Commit, class Fresh>
[[gnu::always_inline]] inline TickState advance(Clock& clock, const Policy& policy,
                                                const SequenceSpace& space, Load&& load,
                                                Commit&& commit, Fresh&& fresh) {
  return advance_from(read_ticks(clock, space), clock, policy, space, load, commit, fresh);
}

}  // namespace idbench
