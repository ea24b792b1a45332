// ticks.hpp — the timer the bench reads around every call: the CPU's time-stamp counter.
//
// Why the TSC, sampled. A generator call costs ~20-40 ns. Timing it with clock_gettime (~22 ns
// through the vDSO, twice per call) would double what it measures; timing batches of N calls
// averages a slow call away, so p99.9 would be the p99.9 of batch means, not of calls. The
// invariant TSC (flags constant_tsc + nonstop_tsc; the kernel's clocksource here) is read from
// user space and calibrated once against CLOCK_MONOTONIC. But a fenced pair of reads still
// costs ~20-30 ns of latency and more of throughput on a VM, and its fences disturb how
// contending threads interleave; so the tight loop times only a random sample of calls
// (sampler.hpp: at most one in 64 when calls are fast), and every reported latency is net of
// the median empty timed region (`overhead`).
//
//   const std::uint64_t t0 = ticks_begin();
//   gen.next();
//   const std::uint64_t t1 = ticks_end();
//   double ns = calibration().ns_of(t1 - t0);
//
// Ordering: `ticks_begin` is lfence; rdtsc; lfence — the first fence keeps earlier work from
// leaking into the region, the second keeps the timed code from starting before the read.
// `ticks_end` is rdtscp; lfence — rdtscp waits for the timed code to finish, the fence keeps
// later work out (Intel, "How to Benchmark Code Execution Times", 2010, with lfence in place
// of cpuid). On other architectures both fall back to CLOCK_MONOTONIC in ns.
//
// Thread safety: the reads are thread-safe; `calibration()` is computed once, thread-safely.
#pragma once

#include <cstdint>
#include <string>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define IDBENCH_HAVE_TSC 1
#else
#include <time.h>
#define IDBENCH_HAVE_TSC 0
#endif

namespace idbench::bench {

#if IDBENCH_HAVE_TSC
inline std::uint64_t ticks_begin() {
  _mm_lfence();
  const std::uint64_t t = __rdtsc();
  _mm_lfence();
  return t;
}
inline std::uint64_t ticks_end() {
  unsigned int aux = 0;  // the core id rdtscp also returns; unused
  const std::uint64_t t = __rdtscp(&aux);
  _mm_lfence();
  return t;
}
// The spin-wait hint (pause): lets the sibling hyperthread run and saves power while waiting.
inline void cpu_relax() { _mm_pause(); }
#else
inline void cpu_relax() {}
// The timer itself where there is no TSC, read around every sampled call: through the vDSO
// (~22 ns), not plumbing::monotonic_ns()'s raw system call (~100 ns), which would be most of
// what a ~20-40 ns call is timed at. The bench runs no libfaketime, so the vDSO is not faked.
inline std::uint64_t monotonic_ns_for_ticks() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000u + ts.tv_nsec;
}
inline std::uint64_t ticks_begin() { return monotonic_ns_for_ticks(); }
inline std::uint64_t ticks_end() { return monotonic_ns_for_ticks(); }
#endif

// How ticks relate to time on this machine, measured once.
struct TickCalibration {
  double ticks_per_ns = 1.0;
  // constant_tsc and nonstop_tsc in /proc/cpuinfo: the TSC rate does not follow the CPU
  // frequency and does not stop in idle states, so ticks are time.
  bool invariant = false;
  // Median of an empty timed region (ticks_begin immediately followed by ticks_end): what a
  // timed call's reading includes beyond the call. Subtracted from every reading.
  std::uint64_t overhead_ticks = 0;
  double overhead_ns = 0;
  // What timing one call adds to a loop's throughput (a fenced pair, back to back): the cost
  // the sampler keeps small.
  double timed_call_cost_ns = 0;
  std::string source;  // e.g. "rdtsc (invariant), 2.200 GHz, calibrated 100 ms vs CLOCK_MONOTONIC"

  double ns_of(std::uint64_t ticks) const { return static_cast<double>(ticks) / ticks_per_ns; }
  std::uint64_t ticks_of_ns(double ns) const {
    return static_cast<std::uint64_t>(ns * ticks_per_ns + 0.5);
  }
  // A timed reading net of the timer's own cost, never below zero.
  std::uint64_t net(std::uint64_t ticks) const {
    return ticks > overhead_ticks ? ticks - overhead_ticks : 0;
  }
};

// Calibrates on first use (sleeps ~100 ms); later calls return the same value.
const TickCalibration& calibration();

}  // namespace idbench::bench
