// cap.hpp — how fast IDs were issued according to the IDs' own timestamps, and how close that
// is to the layout's format cap.
//
// Why count from the IDs. A 41/10/12 Snowflake node can issue at most 4,096 IDs per ms
// (4.096 M/s): in a tight loop every correct variant lands on that cap, whatever its locking.
// Google Benchmark's multi-thread timing averages each thread's own start-to-stop time, and
// threads start and stop at different instants, so it can report more than the cap. The IDs
// cannot lie about it: each carries the tick it was issued in.
//
// Each thread keeps a `TickSpan` of the IDs it issued: the first and last tick it saw and how
// many of its IDs fell in each. After the run, `merge_spans` finds the global first and last
// ticks. Those two are partial (the run began and ended inside them), so every rate counts only
// the *interior*: the IDs strictly between them, over the ticks strictly between them. A run
// that filled every interior tick has a cap ratio of exactly 1; a ratio above 1 is impossible
// without duplicate IDs.
//
//   TickSpan span;                         // per thread
//   for (...) span.observe(id >> tick_shift(layout));
//   auto s = merge_spans(all_spans);        // after the run
//   cap_ratio(*s, format_cap(layout, nodes).ids_per_tick);
//
// Thread safety: plain values and pure functions; one TickSpan per thread.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>

#include "generators/id.hpp"
#include "generators/layout.hpp"

namespace idbench::bench {

// What one thread saw of its IDs' timestamps. Precondition of `observe`: ticks do not go
// backwards within a thread (true of every generator policy but `unsafe` after a clock step).
struct TickSpan {
  static constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::min();
  std::int64_t first = kNone;
  std::int64_t last = kNone;
  std::uint64_t in_first = 0;  // valid once the thread has left its first tick
  std::uint64_t in_last = 0;
  std::uint64_t total = 0;

  void observe(std::int64_t tick) {
    ++total;
    if (tick == last) {
      ++in_last;
      return;
    }
    if (last == kNone) {
      first = tick;
    } else if (last == first) {
      in_first = in_last;  // leaving the first tick: its count is final
    }
    last = tick;
    in_last = 1;
  }
  std::uint64_t first_count() const { return first == last ? in_last : in_first; }
  bool empty() const { return total == 0; }
};

// All threads' spans together.
struct IdTimeSummary {
  std::int64_t first_tick = 0;
  std::int64_t last_tick = 0;
  std::uint64_t total = 0;
  std::uint64_t interior_ids = 0;   // IDs in ticks strictly between first and last
  std::int64_t interior_ticks = 0;  // last - first - 1; < 1 means the run was too short
};

// nullopt when no thread issued an ID.
std::optional<IdTimeSummary> merge_spans(std::span<const TickSpan> spans);

// IDs per second by the IDs' own clock: interior IDs over interior time. nullopt when the run
// covered fewer than three ticks (no interior).
std::optional<double> rate_by_id_time(const IdTimeSummary& s, double tick_seconds);

// Achieved ÷ cap over the interior: interior IDs ÷ (interior ticks × cap IDs per tick).
// nullopt as above, or when the cap is not positive.
std::optional<double> cap_ratio(const IdTimeSummary& s, double cap_ids_per_tick);

// The format cap of a layout for `nodes` node ids (one per node the run's IDs carried).
struct FormatCap {
  double ids_per_tick = 0;
  double ids_per_second = 0;
  double tick_seconds = 0;
};
FormatCap format_cap(const Layout& layout, std::uint64_t nodes);

// The bit position of the timestamp in a 64-bit layout's ID: it always sits right above the
// node and sequence fields, whichever of them is lowest (spare | ts | node | seq, or Sonyflake's
// ts | seq | node). So `id >> tick_shift(layout)` is the tick, the spare bit being 0.
inline int tick_shift(const Layout& layout) {
  return layout.gen_bits() + layout.node_bits() + layout.seq_bits();
}

// Distinct node ids among `ids` of a 64-bit layout.
std::uint64_t distinct_nodes(const Layout& layout, std::span<const std::uint64_t> ids);

}  // namespace idbench::bench
