// register.hpp — registers every benchmark of idbench-bench at run time, over the generator
// registry: the bench never names a variant.
//
//   generate/<variant>/<layout>/threads:<T>   tight loop, every call timed
//   load/<variant>/<layout>/threads:<T>       T threads at a fixed total rate
//   baseline/clock_gettime, baseline/fetch_add/threads:<T>, baseline/libuuid_random,
//   baseline/libuuid_time, baseline/boost_random
//   floor/no-clock/threads:<T>, floor/clock-once/threads:<T>
//                                             the harness's floors (generators/reference.hpp),
//                                             registered before the variants: each variant's
//                                             cost above them is in its counters
//                                             (gbench_output.hpp)
//   floor/clock-once+mutex/threads:1, floor/clock-once+cas/threads:1
//                                             the clock-once floor plus one uncontended
//                                             std::mutex / compare-exchange: the floors under
//                                             mutex and cas (1 thread only: register.cpp)
//   reference/clock-under-lock-mutex/<layout>/threads:<T>
//                                             Twitter's original mutex shape: bench-only, a
//                                             reference line beside `mutex` (generate mode)
//
// Variants that take no layout (`uses_layout == false`) are registered under every layout
// name all the same, with the label "layout unused": every (variant, layout, threads) cell of
// the report then exists, and the two runs of the same code give a free noise estimate.
//
// Names carry no "/real_time" suffix: Google Benchmark appends one to every name when
// UseRealTime() is set, and the names above are the bench's interface. The wall-clock rates
// that matter are the bench's own counters (ids_per_s over the span of all threads on one
// clock); Google Benchmark's `real_time` field is still in the JSON beside `cpu_time`.
//
// Thread safety: call once, from main, before benchmark::RunSpecifiedBenchmarks.
#pragma once

#include <vector>

#include "generators/layout.hpp"

namespace idbench::bench {

struct BenchConfig {
  std::vector<Layout> layouts;
  std::vector<int> threads;      // thread counts for generate, load and fetch_add
  double load_rate_per_s = 1e6;  // total offered rate of every load benchmark
};

void register_benchmarks(const BenchConfig& config);

}  // namespace idbench::bench
