#include "check/checker.hpp"

#include <algorithm>
#include <array>

namespace idbench {
namespace {

// One LSD pass on a 16-bit digit; returns false (and leaves `keys` alone) when every key has
// the same digit, so the pass would not move anything.
template <class T, class Digit>
bool radix_pass(std::vector<T>& keys, std::vector<T>& scratch, Digit digit) {
  std::vector<std::size_t> count(1 << 16, 0);
  for (const T& k : keys) ++count[digit(k)];
  for (std::size_t c : count) {
    if (c == keys.size()) return false;
    if (c != 0) break;
  }
  std::size_t sum = 0;
  for (std::size_t& c : count) {
    const std::size_t n = c;
    c = sum;
    sum += n;
  }
  scratch.resize(keys.size());
  for (const T& k : keys) scratch[count[digit(k)]++] = k;
  keys.swap(scratch);
  return true;
}

template <class T>
std::size_t find_duplicates(const std::vector<T>& sorted, std::size_t max_examples,
                            std::vector<T>& examples) {
  std::size_t dups = 0;
  for (std::size_t i = 1; i < sorted.size(); ++i) {
    if (sorted[i] != sorted[i - 1]) continue;
    ++dups;
    if (examples.size() < max_examples && (examples.empty() || examples.back() != sorted[i])) {
      examples.push_back(sorted[i]);
    }
  }
  return dups;
}

}  // namespace

void radix_sort(std::vector<std::uint64_t>& keys) {
  std::vector<std::uint64_t> scratch;
  for (int shift = 0; shift < 64; shift += 16) {
    radix_pass(keys, scratch, [shift](std::uint64_t k) { return (k >> shift) & 0xFFFF; });
  }
}

void radix_sort(std::vector<Id>& keys) {
  std::vector<Id> scratch;
  for (int shift = 0; shift < 64; shift += 16) {
    radix_pass(keys, scratch, [shift](const Id& k) { return (k.lo >> shift) & 0xFFFF; });
  }
  for (int shift = 0; shift < 64; shift += 16) {
    radix_pass(keys, scratch, [shift](const Id& k) { return (k.hi >> shift) & 0xFFFF; });
  }
}

std::size_t CheckReport::order_violations() const {
  std::size_t n = 0;
  for (const auto& s : streams) n += s.order_violations;
  return n;
}

CheckReport check_streams(std::span<const IdStream> streams, std::size_t max_examples) {
  CheckReport report;
  const bool wide = std::any_of(streams.begin(), streams.end(),
                                [](const IdStream& s) { return s.width == IdWidth::bits128; });

  for (const IdStream& s : streams) {
    StreamReport sr{s.name, s.size(), 0, 0};
    for (std::size_t i = 1; i < s.size(); ++i) {
      if (s.at(i) < s.at(i - 1)) {
        if (sr.order_violations++ == 0) sr.first_violation = i;
      }
    }
    report.total += s.size();
    report.streams.push_back(std::move(sr));
  }

  std::vector<Id> dup_values;
  if (wide) {
    std::vector<Id> all;
    all.reserve(report.total);
    for (const IdStream& s : streams) {
      for (std::size_t i = 0; i < s.size(); ++i) all.push_back(s.at(i));
    }
    radix_sort(all);
    report.duplicates = find_duplicates(all, max_examples, dup_values);
  } else {
    std::vector<std::uint64_t> all;
    all.reserve(report.total);
    for (const IdStream& s : streams) all.insert(all.end(), s.ids64.begin(), s.ids64.end());
    radix_sort(all);
    std::vector<std::uint64_t> values;
    report.duplicates = find_duplicates(all, max_examples, values);
    for (std::uint64_t v : values) dup_values.push_back(Id::from_u64(v));
  }

  // Locate the few duplicated values: one more pass over the streams.
  for (const Id& v : dup_values) report.examples.push_back({v, 0, {}});
  if (!dup_values.empty()) {
    for (std::size_t si = 0; si < streams.size(); ++si) {
      for (std::size_t i = 0; i < streams[si].size(); ++i) {
        const Id id = streams[si].at(i);
        for (auto& ex : report.examples) {
          if (ex.id == id) {
            ++ex.occurrences;
            ex.places.push_back({si, i});
          }
        }
      }
    }
  }
  return report;
}

}  // namespace idbench
