// sorted_search.hpp — branch-free lower and upper bound on a sorted array of keys.
//
// std::lower_bound branches on every comparison; on keys in random order half of those
// branches are mispredicted, and a B+tree search of a UUID pays that at every level. These
// select with a conditional move instead (for integer keys; other key types compare as they
// do) and return the same positions as std::lower_bound / std::upper_bound: for a sorted
// array the bound is unique, however it is found. The steps are the ones
// InnodbModel::warm() takes, so a warmed search finds its lines in the cache.
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>

namespace idbench::locality {

// One step of the search: the half of [base, base + n) that holds the bound. `below(k)` is
// true when k sorts before the bound (k < key for lower_bound, !(key < k) for upper_bound).
template <class Key, class Below>
inline const Key* search_step(const Key* base, std::size_t& n, Below below) {
  const std::size_t half = n / 2;
  n -= half;
  return below(base[half]) ? base + half : base;
}

template <class Key, class Below>
inline std::size_t bound_position(const Key* first, std::size_t n, Below below) {
  if (n == 0) return 0;
  const Key* base = first;
  while (n > 1) base = search_step(base, n, below);
  return static_cast<std::size_t>(base - first) + (below(*base) ? 1 : 0);
}

// The index of the first key not less than `key` (std::lower_bound).
template <class Key>
inline std::size_t lower_position(const Key* first, std::size_t n, const Key& key) {
  return bound_position(first, n, [&key](const Key& k) { return k < key; });
}

// The index of the first key greater than `key` (std::upper_bound).
template <class Key>
inline std::size_t upper_position(const Key* first, std::size_t n, const Key& key) {
  return bound_position(first, n, [&key](const Key& k) { return !(key < k); });
}

}  // namespace idbench::locality
