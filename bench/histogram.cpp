#include "bench/histogram.hpp"

#include <algorithm>
#include <cmath>

namespace idbench::bench {

static_assert(LatencyHistogram::index_of(~std::uint64_t{0}) == LatencyHistogram::kBucketCount - 1,
              "the last bucket holds the largest 64-bit value");

void LatencyHistogram::merge(const LatencyHistogram& other) {
  for (std::size_t i = 0; i < kBucketCount; ++i) counts_[i] += other.counts_[i];
  count_ += other.count_;
  max_ = std::max(max_, other.max_);
}

std::uint64_t LatencyHistogram::value_at_quantile(double q) const {
  if (count_ == 0) return 0;
  q = std::clamp(q, 0.0, 1.0);
  // The rank of the value asked for, 1-based: ceil(q × n), at least the smallest value. A
  // product within rounding error of an integer is that integer (0.99 × 100 is 98.999…).
  const double exact = q * static_cast<double>(count_);
  const double nearest = std::round(exact);
  const double ceiled =
      std::abs(exact - nearest) <= 1e-9 * std::max(1.0, exact) ? nearest : std::ceil(exact);
  const auto rank = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(ceiled));
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < kBucketCount; ++i) {
    seen += counts_[i];
    if (seen >= rank) return std::min(highest_in_bucket(i), max_);
  }
  return max_;
}

}  // namespace idbench::bench
