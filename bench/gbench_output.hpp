// gbench_output.hpp — everything the bench writes into Google Benchmark's output: per-run user
// counters, and the custom context block every JSON file opens with. Formatting lives here
// and only here; the measuring code never formats.
//
// Context keys (Google Benchmark's context holds strings, so the two blocks shared with the
// other result files are JSON text):
//   idbench_run_context  the run-context block of plumbing/run_context.hpp, the same schema
//                        locality.json and chaos.json carry as their "context" object: commit
//                        and dirty marker, build type, compiler, host, CPU, start, load
//   idbench_variants     the catalog `idbench list --json` prints (real/catalog_json.hpp): what
//                        each variant is, so a report rendered later from these results does
//                        not depend on the binary at hand
//   idbench_timer, idbench_tsc_ghz, idbench_timer_overhead_ns, idbench_timed_call_cost_ns,
//   idbench_hardware_threads, idbench_load_rate_per_s, idbench_load_latency,
//   idbench_layoutless_variants, idbench_layout_<name>   how this bench measured
//
// Counters (all plain kDefault counters, set by thread 0 only, so Google Benchmark's
// summing across threads leaves them as set):
//   ids_per_s         IDs per second: by the IDs' own timestamps when they carry one (IDs in
//                     whole ticks ÷ those ticks), else ids_per_s_wall
//   ids_per_s_wall    IDs ÷ wall span of the run on the TSC (earliest call start to latest
//                     call end, all threads): the cross-check
//   ns_per_id         generate mode (variants, floors, references, baselines): CPU-thread
//                     time per ID, threads × wall span ÷ IDs = threads × 1e9 ÷ ids_per_s_wall
//                     (bench/floors.hpp). At 1 thread, 1e9 ÷ ids_per_s_wall.
//   above_no_clock_ns, above_clock_once_ns   generate/ and reference/ runs: ns_per_id minus
//                     the ns_per_id of floor/no-clock (the harness's own cost per ID: loop,
//                     virtual call, Id) or floor/clock-once (the harness plus one wall-clock
//                     read) at the same thread count in the same process: the median over the
//                     floor's repetitions so far. What is left is the design's own cost.
//                     Absent when that floor did not run (filtered out); may be negative
//                     within noise.
//   cap_ratio         achieved ÷ format cap for the node ids seen (capped layouts only)
//   cap_per_s, nodes  that cap and the node ids it counts
//   wait_ratio        calls that spun for the clock ÷ calls (generators; 0 for those that
//                     read no clock)
//   p50_ns p99_ns p999_ns max_ns   per-call latency (load: from the intended send time),
//                     net of the timer's own cost
//   samples           timed calls behind those percentiles
//   svc_p50_ns svc_p99_ns svc_p999_ns   load only: from the actual call start
//   offered_per_s     load only: the total rate asked for
//
// Thread safety: call from thread 0 of a run, or from main before the run.
#pragma once

#include <benchmark/benchmark.h>

#include <optional>
#include <span>

#include "bench/summary.hpp"
#include "bench/ticks.hpp"
#include "generators/layout.hpp"

namespace idbench::bench {

void report_counters(benchmark::State& state, const RunSummary& summary,
                     std::optional<double> offered_per_s);

struct BenchContext {
  double load_rate_per_s = 0;
  std::span<const Layout> layouts;
  const TickCalibration* ticks = nullptr;
};

// Adds the idbench_* keys to the JSON context block (benchmark::AddCustomContext).
void add_context(const BenchContext& context);

}  // namespace idbench::bench
