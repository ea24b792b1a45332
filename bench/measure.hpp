// measure.hpp — the two timed loops every bench runs on each of its threads. They record into
// the thread's own ThreadResult and nothing else: no summarising, no output.
//
//   measure_generate  tight loop. Every call counts toward the rate, the IDs' timestamps and
//                     the wait count; a random sample of calls is also timed with the TSC
//                     (sampler.hpp says why a sample, ticks.hpp why the TSC).
//   measure_load      paced loop: this thread's share of a fixed total rate. Every call is
//                     timed (calls are µs apart, so the timer costs nothing that matters).
//                     Each call has an intended send time on a fixed schedule, and latency is
//                     measured from that time, not from when the call actually started: a
//                     call that starts late because an earlier one was slow is charged for
//                     the wait (the coordinated-omission correction of wrk2/HdrHistogram).
//
// Both run the whole iteration count in one batch (KeepRunningBatch(max_iterations)), so the
// run's wall span is read right before the first call and right after the last one, outside
// Google Benchmark's start/stop barrier.
//
// `next` is any callable returning an Id; `time_of` reads the time out of an ID as an optional
// tick or Unix ms (NoIdTime for IDs that carry none; nullopt for an ID that carries no time
// after all, which is then left out of the span). Both are template parameters: the loop has no dispatch beyond the
// generator's own virtual call.
//
// Thread safety: each thread passes its own ThreadResult.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <thread>

#include "bench/counting_clock.hpp"
#include "bench/id_time.hpp"
#include "bench/sampler.hpp"
#include "bench/summary.hpp"
#include "bench/ticks.hpp"
#include "generators/id.hpp"

namespace idbench::bench {

struct MeasureOptions {
  bool count_waits = false;    // the IDs come from a generator reading the bench clock
  std::uint32_t mean_gap = 1;  // generate: time one call in `mean_gap` on average
  std::uint64_t sampler_seed = 1;
  double period_ticks = 0;         // load: this thread's interval between intended sends
  bool yield_while_early = false;  // load: yield rather than spin while ahead of schedule
};

template <class Next, class TimeOf>
void measure_generate(benchmark::State& state, Next&& next, TimeOf time_of,
                      const MeasureOptions& opt, ThreadResult& out) {
  const TickCalibration& ticks = calibration();
  const benchmark::IterationCount n = state.max_iterations;
  CallSampler sampler(opt.mean_gap, opt.sampler_seed);
  std::uint64_t waited = 0;
  Id id{};
  while (state.KeepRunningBatch(n)) {
    out.start_ticks = ticks_begin();
    for (benchmark::IterationCount k = 0; k < n; ++k) {
      const std::uint64_t relaxes = CountingWallClock::relaxes_on_this_thread();
      if (sampler.take()) {
        const std::uint64_t t0 = ticks_begin();
        id = next();
        const std::uint64_t t1 = ticks_end();
        out.latency.record(ticks.net(t1 - t0));
      } else {
        id = next();
      }
      benchmark::DoNotOptimize(id);
      waited += CountingWallClock::relaxes_on_this_thread() != relaxes;
      if constexpr (TimeOf::kHasTime) {
        if (const auto t = time_of(id)) out.span.observe(*t);
      }
      if (k == 0) out.first_id = id;
    }
    out.end_ticks = ticks_end();
    out.calls += static_cast<std::uint64_t>(n);
  }
  out.waited_calls = opt.count_waits ? waited : 0;
  out.last_id = id;
}

// Each thread keeps its own schedule from its first call. While early, a thread spins; with
// more threads than cores it yields instead, so threads ahead of schedule do not take the CPU
// from those behind.
template <class Next, class TimeOf>
void measure_load(benchmark::State& state, Next&& next, TimeOf time_of, const MeasureOptions& opt,
                  ThreadResult& out) {
  const TickCalibration& ticks = calibration();
  const benchmark::IterationCount n = state.max_iterations;
  std::uint64_t waited = 0;
  std::uint64_t t1 = 0;
  Id id{};
  while (state.KeepRunningBatch(n)) {
    const std::uint64_t schedule_start = ticks_begin();
    out.start_ticks = schedule_start;
    for (benchmark::IterationCount k = 0; k < n; ++k) {
      const std::uint64_t intended =
          schedule_start + static_cast<std::uint64_t>(static_cast<double>(k) * opt.period_ticks);
      std::uint64_t t0 = ticks_begin();
      while (t0 < intended) {
        if (opt.yield_while_early) {
          std::this_thread::yield();
        } else {
          cpu_relax();
        }
        t0 = ticks_begin();
      }
      const std::uint64_t relaxes = CountingWallClock::relaxes_on_this_thread();
      id = next();
      t1 = ticks_end();
      benchmark::DoNotOptimize(id);
      out.latency.record(ticks.net(t1 - intended));
      out.service.record(ticks.net(t1 - t0));
      waited += CountingWallClock::relaxes_on_this_thread() != relaxes;
      if constexpr (TimeOf::kHasTime) {
        if (const auto t = time_of(id)) out.span.observe(*t);
      }
      if (k == 0) out.first_id = id;
    }
    out.end_ticks = t1;
    out.calls += static_cast<std::uint64_t>(n);
  }
  out.waited_calls = opt.count_waits ? waited : 0;
  out.last_id = id;
}

}  // namespace idbench::bench
