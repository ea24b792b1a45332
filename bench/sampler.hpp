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
// The mean gap m is set per run from the iteration count Google Benchmark gives each thread:
// enough timed calls for a p99.9 (kTargetSamples per thread), and at most one call in 64
// timed. The cap matters more than the timer's own cost (~50 ns ÷ 64 ≈ 1 ns a call): fenced
// TSC reads between calls change how contending threads interleave — timing every fourth call
// was seen to halve a contended mutex's throughput on this VM — so fast loops are timed
// sparsely. A slow call (libuuid, ~2 µs) gets few iterations and is timed every time.
//
//   CallSampler sampler(mean_gap_for(state.max_iterations), seed);
//   if (sampler.take()) { /* time this call */ }
//
// Thread safety: thread-compatible; one sampler per thread.
#pragma once

#include <algorithm>
#include <cstdint>

namespace idbench::bench {

inline constexpr std::uint32_t kMaxMeanGap = 64;
inline constexpr std::uint64_t kTargetSamples = 50'000;  // per thread and run: 50 beyond p99.9

// The mean gap for a thread making `iterations` calls.
inline std::uint32_t mean_gap_for(std::uint64_t iterations) {
  return static_cast<std::uint32_t>(
      std::clamp<std::uint64_t>(iterations / kTargetSamples, 1, kMaxMeanGap));
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
