// policy.hpp — what a time-based generator does when the wall clock is behind the last tick
// it issued from. The five policies found in the field and DCE's 1994 remedy, as a
// small value type:
//
//   refuse        throw ClockMovedBackwards carrying the ms (Twitter, Baidu Default).
//   wait          spin until the clock reaches the last tick again (Twitter's README, DCE).
//   bounded-wait  wait at most `bound_ms` (default 5 ms, as Meituan Leaf), else fail.
//   borrow        keep issuing from the last tick; on sequence overflow move the tick one
//                 ahead, up to `bound_ms` (default 1 s) ahead of the clock; at the bound wait
//                 for the clock, and fail when the clock is behind by more than the bound
//                 (Sonyflake, TSID, PostgreSQL 18 uuidv7()).
//   unsafe        reset the sequence at the current tick and carry on (libuuid's v7,
//                 twitter-archive/snowflake#6). It issues duplicates after a backward step;
//                 it exists so the harness can prove it catches them.
//   clock-sequence   DCE 1994 (X/Open C309 App. A.2.1, RFC 9562 §5.1): change the clock
//                 sequence (a layout's `gen` field) and keep issuing at the clock's time. It
//                 never reuses a (tick, generation) pair it may have issued; when the
//                 generations run out inside the window where older IDs of the same ticks may
//                 exist, it waits for the clock as `wait` does (sequencer.hpp says exactly when).
//
// Text form, as the CLI takes it: `NAME` or `NAME:BOUND_MS`, e.g. `bounded-wait:10`; a bound
// is 0 to 86,400,000 ms (a day).
//
// Thread safety: a plain value.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace idbench {

enum class PolicyKind { refuse, wait, bounded_wait, borrow, unsafe, clock_sequence };

struct Policy {
  PolicyKind kind = PolicyKind::refuse;
  // bounded_wait: longest wait; borrow: how far ahead of the clock; unused otherwise.
  std::int64_t bound_ms = 0;

  // Throws idbench::Error with the list of policies on an unknown name or a bad bound.
  static Policy parse(std::string_view text);
  static Policy of(PolicyKind kind);  // with the default bound
  std::string name() const;           // the parseable text form
  // Every policy but `unsafe` promises that one generator never issues an ID twice.
  bool promises_uniqueness() const { return kind != PolicyKind::unsafe; }
  bool operator==(const Policy&) const = default;
};

struct PolicyInfo {
  PolicyKind kind;
  std::string_view name;
  std::int64_t default_bound_ms;
  std::string_view summary;
};
std::span<const PolicyInfo> policy_catalog();

}  // namespace idbench
