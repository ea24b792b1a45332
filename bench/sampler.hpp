// sampler.hpp — which calls of a tight loop get timed.
//
// Timing a call with the TSC costs a fenced pair of reads, about as much as a fast generator
// call (ticks.hpp). Timing every call would make the bench measure its timer, so the loop
// times a random sample: after each timed call the next one is 1 … 2m−1 calls away, uniformly
// at random (mean m). The choice of which call to time is made before the call and does not
// depend on what calls cost, so the timed calls are an unbiased sample of all calls — and,
// unlike a fixed stride, a random gap cannot lock onto a periodic pattern such as "one call in
// 4,096 waits for the next millisecond".
//
// The mean gap m is set per run from the previous run of the same benchmark (Google Benchmark
// runs each benchmark several times while it sizes the iteration count), so that timing adds
// at most ~5 % to the loop: m = ceil(20 × cost of a timed call ÷ cost of a call), within
// [1, 64]. A 2 µs call is timed every time; a 25 ns call about once in 50.
//
//   CallSampler sampler(mean_gap_for(timer_cost_ns, ns_per_call), seed);
//   if (sampler.take()) { /* time this call */ }
//
// Thread safety: thread-compatible; one sampler per thread.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace idbench::bench {

inline constexpr std::uint32_t kMaxMeanGap = 64;       // ≥ ~1.5 % of calls timed, for the tail
inline constexpr std::uint32_t kFirstRunMeanGap = 16;  // before any run has been seen

// The mean gap that keeps the timer's share of the loop at ~5 %. A non-positive call cost
// (nothing measured yet) gives kFirstRunMeanGap.
inline std::uint32_t mean_gap_for(double timed_call_cost_ns, double ns_per_call) {
  if (!(ns_per_call > 0) || !(timed_call_cost_ns > 0)) return kFirstRunMeanGap;
  const double gap = std::ceil(20.0 * timed_call_cost_ns / ns_per_call);
  return static_cast<std::uint32_t>(std::clamp(gap, 1.0, static_cast<double>(kMaxMeanGap)));
}

class CallSampler {
 public:
  CallSampler(std::uint32_t mean_gap, std::uint64_t seed)
      : span_(2 * std::max<std::uint32_t>(mean_gap, 1) - 1), state_(seed | 1) {
    countdown_ = draw();
  }

  // True when this call is to be timed.
  bool take() {
    if (--countdown_ != 0) return false;
    countdown_ = draw();
    return true;
  }

 private:
  // xorshift64: fast, and plenty random for choosing calls.
  std::uint32_t draw() {
    state_ ^= state_ << 13;
    state_ ^= state_ >> 7;
    state_ ^= state_ << 17;
    return 1 + static_cast<std::uint32_t>(state_ % span_);
  }

  std::uint32_t span_;  // gaps are 1 … span_
  std::uint64_t state_;
  std::uint32_t countdown_ = 1;
};

}  // namespace idbench::bench
