#include "bench/ticks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <sstream>
#include <string_view>
#include <thread>
#include <vector>

#include "plumbing/raw_time.hpp"

namespace idbench::bench {
namespace {

// True when the first "flags" line of /proc/cpuinfo lists every one of `wanted`.
bool cpu_has_flags(std::initializer_list<std::string_view> wanted) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream words(line);
    std::vector<std::string> flags{std::istream_iterator<std::string>(words), {}};
    return std::all_of(wanted.begin(), wanted.end(), [&](std::string_view w) {
      return std::find(flags.begin(), flags.end(), w) != flags.end();
    });
  }
  return false;
}

// One pair of (monotonic ns, ticks) read as close together as possible: the pair with the
// shortest bracketing interval of five is kept, so a preemption between the reads is dropped.
// The clock is the harness's one monotonic clock, a raw system call (~100 ns, where the vDSO
// takes ~22): the bracket is wider, but each end is off by at most half of it (~50 ns) against
// the 100 ms between the two ends (under 1e-6), and where in the call the kernel reads the
// clock is the same at both ends, so that part cancels in the rate.
std::pair<std::int64_t, std::uint64_t> paired_reading() {
  std::pair<std::int64_t, std::uint64_t> best{};
  std::uint64_t best_width = ~std::uint64_t{0};
  for (int i = 0; i < 5; ++i) {
    const std::uint64_t before = ticks_begin();
    const std::int64_t ns = plumbing::monotonic_ns();
    const std::uint64_t after = ticks_end();
    if (after - before < best_width) {
      best_width = after - before;
      best = {ns, before + (after - before) / 2};
    }
  }
  return best;
}

TickCalibration calibrate() {
  TickCalibration c;
#if IDBENCH_HAVE_TSC
  constexpr int kCalibrationMs = 100;
  const auto [ns0, t0] = paired_reading();
  std::this_thread::sleep_for(std::chrono::milliseconds(kCalibrationMs));
  const auto [ns1, t1] = paired_reading();
  c.ticks_per_ns = static_cast<double>(t1 - t0) / static_cast<double>(ns1 - ns0);
  c.invariant = cpu_has_flags({"constant_tsc", "nonstop_tsc"});
  c.source = fmt::format("rdtsc{}, {:.4f} GHz, calibrated over {} ms against CLOCK_MONOTONIC",
                         c.invariant ? " (invariant TSC)" : " (TSC NOT known invariant)",
                         c.ticks_per_ns, kCalibrationMs);
#else
  c.ticks_per_ns = 1.0;
  c.invariant = true;
  c.source = "CLOCK_MONOTONIC (no TSC on this architecture)";
#endif
  constexpr int kSamples = 100'001;
  std::vector<std::uint64_t> empty(kSamples);
  const std::uint64_t loop_start = ticks_begin();
  for (auto& e : empty) {
    const std::uint64_t a = ticks_begin();
    const std::uint64_t b = ticks_end();
    e = b - a;
  }
  const std::uint64_t loop_end = ticks_end();
  c.timed_call_cost_ns = c.ns_of(loop_end - loop_start) / kSamples;
  std::nth_element(empty.begin(), empty.begin() + kSamples / 2, empty.end());
  c.overhead_ticks = empty[kSamples / 2];
  c.overhead_ns = c.ns_of(c.overhead_ticks);
  return c;
}

}  // namespace

const TickCalibration& calibration() {
  static const TickCalibration c = calibrate();
  return c;
}

}  // namespace idbench::bench
