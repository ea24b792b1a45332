// interval.hpp — half-open time intervals [from, to) and the three operations the analyser
// needs: union, subtraction and clipping. Times are ns; any consistent unit works.
//
// Thread safety: pure functions.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace idbench::chaos {

struct Interval {
  std::int64_t from = 0;
  std::int64_t to = 0;
  std::int64_t length() const { return to > from ? to - from : 0; }
  bool operator==(const Interval&) const = default;
};

// Sorted, disjoint, non-touching intervals covering the same points; empty ones dropped.
inline std::vector<Interval> merged(std::vector<Interval> v) {
  std::erase_if(v, [](const Interval& i) { return i.to <= i.from; });
  std::sort(v.begin(), v.end(),
            [](const Interval& a, const Interval& b) { return a.from < b.from; });
  std::vector<Interval> out;
  for (const Interval& i : v) {
    if (!out.empty() && i.from <= out.back().to) {
      out.back().to = std::max(out.back().to, i.to);
    } else {
      out.push_back(i);
    }
  }
  return out;
}

// The points of `a` not in `b`.
inline std::vector<Interval> subtract(const std::vector<Interval>& a,
                                      const std::vector<Interval>& b) {
  const std::vector<Interval> cut = merged(b);
  std::vector<Interval> out;
  for (Interval i : merged(a)) {
    for (const Interval& c : cut) {
      if (c.to <= i.from || c.from >= i.to) continue;
      if (c.from > i.from) out.push_back({i.from, c.from});
      i.from = std::max(i.from, c.to);
      if (i.from >= i.to) break;
    }
    if (i.from < i.to) out.push_back(i);
  }
  return out;
}

inline std::vector<Interval> clipped(const std::vector<Interval>& v, std::int64_t from,
                                     std::int64_t to) {
  std::vector<Interval> out;
  for (const Interval& i : v) {
    const Interval c{std::max(i.from, from), std::min(i.to, to)};
    if (c.from < c.to) out.push_back(c);
  }
  return out;
}

inline std::int64_t total_length(const std::vector<Interval>& v) {
  std::int64_t sum = 0;
  for (const Interval& i : merged(v)) sum += i.length();
  return sum;
}

inline std::int64_t longest(const std::vector<Interval>& v) {
  std::int64_t best = 0;
  for (const Interval& i : merged(v)) best = std::max(best, i.length());
  return best;
}

}  // namespace idbench::chaos
