// radix.hpp — the LSD radix sort behind every duplicate search: 16-bit digits, stable, and a
// pass skipped when every key has the same digit (time-ordered IDs make that common).
//
//   std::vector<Record> v = ..., scratch;
//   radix_sort_by(v, scratch, [](const Record& r) { return r.key; });  // key: u64 or Id
//
// Cost: one scratch array as large as the input, and a 512 KiB count table per pass.
// Thread safety: pure functions over the caller's vectors.
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include "generators/id.hpp"

namespace idbench::radix {

// One pass on the 16-bit digit `digit(x)`; returns false, leaving `keys` alone, when every
// element has the same digit, so the pass would not move anything.
template <class T, class Digit>
bool radix_pass(std::vector<T>& keys, std::vector<T>& scratch, Digit digit) {
  std::vector<std::size_t> count(std::size_t{1} << 16, 0);
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

// Sorts stably by `key(x)`, which is a std::uint64_t or an Id (compared hi first).
template <class T, class KeyOf>
void radix_sort_by(std::vector<T>& v, std::vector<T>& scratch, KeyOf key) {
  using Key = std::decay_t<decltype(key(v.front()))>;
  for (int shift = 0; shift < 64; shift += 16) {
    radix_pass(v, scratch, [&](const T& x) {
      if constexpr (std::is_same_v<Key, Id>) {
        return (key(x).lo >> shift) & 0xFFFF;
      } else {
        return (key(x) >> shift) & 0xFFFF;
      }
    });
  }
  if constexpr (std::is_same_v<Key, Id>) {
    for (int shift = 0; shift < 64; shift += 16) {
      radix_pass(v, scratch, [&](const T& x) { return (key(x).hi >> shift) & 0xFFFF; });
    }
  }
}

}  // namespace idbench::radix
