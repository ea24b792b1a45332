// PageKeys against a plain sorted std::vector: the same sequence after every operation.
#include "bench/locality/page_keys.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "bench/locality/sorted_search.hpp"

namespace idbench::locality {
namespace {

template <class Key>
void expect_same(const PageKeys<Key>& keys, const std::vector<Key>& want) {
  ASSERT_EQ(keys.size(), want.size());
  ASSERT_EQ(keys.to_vector(), want);
  for (std::size_t i = 0; i < want.size(); i += 7) ASSERT_EQ(keys[i], want[i]) << i;
  if (!want.empty()) {
    ASSERT_EQ(keys.front(), want.front());
    ASSERT_EQ(keys.back(), want.back());
  }
}

TEST(SortedSearch, BoundsAreStdLowerAndUpperBound) {
  std::mt19937_64 rng(3);
  for (int round = 0; round < 2000; ++round) {
    std::vector<std::uint64_t> v(rng() % 40);
    for (auto& x : v) x = rng() % 50;
    std::sort(v.begin(), v.end());
    const std::uint64_t key = rng() % 52;
    EXPECT_EQ(lower_position(v.data(), v.size(), key),
              static_cast<std::size_t>(std::lower_bound(v.begin(), v.end(), key) - v.begin()));
    EXPECT_EQ(upper_position(v.data(), v.size(), key),
              static_cast<std::size_t>(std::upper_bound(v.begin(), v.end(), key) - v.begin()));
  }
}

// Random, ascending and descending inserts with splits, pointer replacements and deletions
// of the first key in between: every operation the model does to a page.
TEST(PageKeys, BehavesAsOneSortedVector) {
  for (const int order : {0, 1, 2}) {
    std::mt19937_64 rng(order + 1);
    PageKeys<std::uint64_t> keys;
    std::vector<std::uint64_t> want;
    for (std::uint64_t i = 0; i < 20'000; ++i) {
      const std::uint64_t key = order == 0 ? rng() % 1'000'000 : order == 1 ? i * 2 : 1'000'000 - 2 * i;
      const std::size_t lo = keys.lower_bound(key), up = keys.upper_bound(key);
      ASSERT_EQ(lo, static_cast<std::size_t>(std::lower_bound(want.begin(), want.end(), key) - want.begin()));
      ASSERT_EQ(up, static_cast<std::size_t>(std::upper_bound(want.begin(), want.end(), key) - want.begin()));
      keys.insert(up, key);
      want.insert(want.begin() + static_cast<std::ptrdiff_t>(up), key);
      if (rng() % 50 == 0 && want.size() > 1) {  // a page split: keep a random part
        const std::size_t m = rng() % (want.size() + 1);
        if (rng() % 2) {
          const PageKeys<std::uint64_t> tail = keys.split_off_back(m);
          expect_same(tail, std::vector<std::uint64_t>(want.begin() + static_cast<std::ptrdiff_t>(m), want.end()));
          want.resize(m);
        } else {
          const PageKeys<std::uint64_t> head = keys.split_off_front(m);
          expect_same(head, std::vector<std::uint64_t>(want.begin(), want.begin() + static_cast<std::ptrdiff_t>(m)));
          want.erase(want.begin(), want.begin() + static_cast<std::ptrdiff_t>(m));
        }
      }
      if (rng() % 40 == 0 && !want.empty()) {
        keys.erase_front();
        want.erase(want.begin());
      }
      if (rng() % 40 == 0 && !want.empty()) {  // a node pointer replaced by an equal-order key
        const std::size_t at = rng() % want.size();
        keys.set(at, want[at]);
      }
      expect_same(keys, want);
    }
    const PageKeys<std::uint64_t> copy = keys;
    expect_same(copy, want);
  }
}

}  // namespace
}  // namespace idbench::locality
