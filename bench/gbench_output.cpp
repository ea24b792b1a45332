// gbench_output.cpp — the bench's Google Benchmark counters and context (see gbench_output.hpp).
#include "bench/gbench_output.hpp"

#include <fmt/format.h>

#include <thread>

#include "plumbing/run_context.hpp"
#include "real/catalog_json.hpp"

namespace idbench::bench {
namespace {

void set(benchmark::State& state, const char* name, double value) {
  state.counters[name] = benchmark::Counter(value);
}
void set(benchmark::State& state, const char* name, const std::optional<double>& value) {
  if (value) set(state, name, *value);
}

}  // namespace

void report_counters(benchmark::State& state, const RunSummary& s,
                     std::optional<double> offered_per_s) {
  set(state, "ids_per_s", s.ids_per_s);
  set(state, "ids_per_s_wall", s.ids_per_s_wall);
  set(state, "ns_per_id", s.ns_per_id);
  set(state, "above_no_clock_ns", s.above_no_clock_ns);
  set(state, "above_clock_once_ns", s.above_clock_once_ns);
  set(state, "cap_ratio", s.cap_ratio);
  set(state, "cap_per_s", s.cap_per_s);
  if (s.nodes_used) set(state, "nodes", static_cast<double>(*s.nodes_used));
  set(state, "wait_ratio", s.wait_ratio);
  set(state, "p50_ns", s.latency.p50_ns);
  set(state, "p99_ns", s.latency.p99_ns);
  set(state, "p999_ns", s.latency.p999_ns);
  set(state, "max_ns", s.latency.max_ns);
  set(state, "samples", static_cast<double>(s.latency_samples));
  if (s.service) {
    set(state, "svc_p50_ns", s.service->p50_ns);
    set(state, "svc_p99_ns", s.service->p99_ns);
    set(state, "svc_p999_ns", s.service->p999_ns);
  }
  set(state, "offered_per_s", offered_per_s);
}

void add_context(const BenchContext& c) {
  benchmark::AddCustomContext("idbench_run_context",
                              plumbing::to_json(plumbing::current_run_context()).dump());
  benchmark::AddCustomContext("idbench_variants", real::catalog_json().dump());
  benchmark::AddCustomContext("idbench_tsc_ghz", fmt::format("{:.6f}", c.ticks->ticks_per_ns));
  benchmark::AddCustomContext(
      "idbench_timer",
      fmt::format("fenced TSC reads around a random sample of calls (generate: 1 call in m, m = "
                  "iterations per thread / 50000 within 1..64; load: every call), each reading "
                  "net of the median empty timed region; {}",
                  c.ticks->source));
  benchmark::AddCustomContext("idbench_timer_overhead_ns",
                              fmt::format("{:.1f}", c.ticks->overhead_ns));
  benchmark::AddCustomContext("idbench_timed_call_cost_ns",
                              fmt::format("{:.1f}", c.ticks->timed_call_cost_ns));
  benchmark::AddCustomContext("idbench_hardware_threads",
                              fmt::format("{}", std::thread::hardware_concurrency()));
  benchmark::AddCustomContext("idbench_load_rate_per_s", fmt::format("{:.0f}", c.load_rate_per_s));
  benchmark::AddCustomContext(
      "idbench_load_latency",
      "from each call's intended send time on a fixed per-thread schedule (rate/T per thread), "
      "so time spent behind schedule counts: corrected for coordinated omission");
  benchmark::AddCustomContext(
      "idbench_layoutless_variants",
      "variants that take no layout run under every layout name with label 'layout unused'");
  for (const Layout& layout : c.layouts) {
    benchmark::AddCustomContext(
        "idbench_layout_" + layout.name(),
        fmt::format("{}; cap {:.0f} IDs/s per node id", layout.spec(), layout.cap_per_second()));
  }
}

}  // namespace idbench::bench
