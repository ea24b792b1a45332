// histogram.hpp — a log-linear latency histogram: what each bench thread records every call
// into, merged after the run, and asked for percentiles.
//
// Buckets follow HdrHistogram's scheme: values below 2^kSubBucketBits have a bucket each;
// above, every power-of-two range [2^e, 2^(e+1)) is cut into 2^kSubBucketBits equal buckets.
// So any value is known to within 1/32 (3.1 %) of itself, the whole 64-bit range fits in
// 1,920 counters (15 KiB, resident in L1 next to the loop), and recording is a bit scan, a
// shift and an increment: a few ns, outside the timed region.
//
//   LatencyHistogram h;
//   h.record(42);                       // any unit; the bench records TSC ticks
//   h.merge(other_thread);
//   h.value_at_quantile(0.99);          // bucket's highest value, clamped to the exact max
//
// Percentile convention (HdrHistogram's): the value at quantile q is the highest value of
// the bucket holding the ceil(q × count)-th smallest recorded value, so it never understates;
// it is clamped to the exact maximum, which is tracked separately.
//
// Thread safety: thread-compatible, not thread-safe — one histogram per thread, merged after
// the threads are done.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace idbench::bench {

class LatencyHistogram {
 public:
  // 32 buckets per octave: 3.1 % resolution, enough to tell p99 from p99.9 on any machine.
  static constexpr int kSubBucketBits = 5;
  static constexpr std::uint64_t kSubBuckets = std::uint64_t{1} << kSubBucketBits;
  // Octaves 2^5 … 2^63 plus the linear range below 2^5.
  static constexpr std::size_t kBucketCount = (64 - kSubBucketBits + 1) * kSubBuckets;

  static constexpr std::size_t index_of(std::uint64_t v) {
    if (v < kSubBuckets) return static_cast<std::size_t>(v);
    const int e = std::bit_width(v) - 1;  // v in [2^e, 2^(e+1)), e >= kSubBucketBits
    const int shift = e - kSubBucketBits;
    return static_cast<std::size_t>(shift + 1) * kSubBuckets + ((v >> shift) - kSubBuckets);
  }
  static constexpr std::uint64_t lowest_in_bucket(std::size_t i) {
    if (i < kSubBuckets) return i;
    const int shift = static_cast<int>(i / kSubBuckets) - 1;
    return (kSubBuckets + i % kSubBuckets) << shift;
  }
  static constexpr std::uint64_t highest_in_bucket(std::size_t i) {
    if (i < kSubBuckets) return i;
    const int shift = static_cast<int>(i / kSubBuckets) - 1;
    return lowest_in_bucket(i) + ((std::uint64_t{1} << shift) - 1);
  }

  void record(std::uint64_t v) {
    ++counts_[index_of(v)];
    ++count_;
    if (v > max_) max_ = v;
  }
  void merge(const LatencyHistogram& other);

  std::uint64_t count() const { return count_; }
  std::uint64_t max() const { return max_; }
  // 0 when empty. `q` is clamped to [0, 1].
  std::uint64_t value_at_quantile(double q) const;

 private:
  std::array<std::uint64_t, kBucketCount> counts_{};
  std::uint64_t count_ = 0;
  std::uint64_t max_ = 0;
};

}  // namespace idbench::bench
