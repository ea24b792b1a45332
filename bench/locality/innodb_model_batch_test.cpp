// InnodbModel::insert_batch is insert() called key by key: same leaves, counters and trace.
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <vector>

#include "bench/locality/innodb_model.hpp"

namespace idbench::locality {
namespace {

template <class Key>
void expect_batch_is_insert(const std::vector<Key>& keys, const ModelOptions& opts) {
  InnodbModel<Key> one(opts), batch(opts);
  std::vector<bool> want;
  for (const Key& k : keys) want.push_back(one.insert(k));
  const auto fresh = std::make_unique<bool[]>(keys.size());
  // Uneven chunks: batches that end mid-way through the model's own warm-up groups.
  for (std::size_t done = 0, step = 1; done < keys.size(); done += step, step = step * 3 % 97 + 1) {
    const std::size_t n = std::min(step, keys.size() - done);
    batch.insert_batch(keys.data() + done, n, fresh.get() + done);
  }
  for (std::size_t i = 0; i < keys.size(); ++i) ASSERT_EQ(fresh[i], want[i]) << i;
  EXPECT_EQ(batch.leaves(), one.leaves());
  EXPECT_EQ(batch.trace().entries, one.trace().entries);
  EXPECT_EQ(batch.total_pages(), one.total_pages());
  EXPECT_EQ(batch.height(), one.height());
  const ModelCounters& a = batch.counters();
  const ModelCounters& b = one.counters();
  EXPECT_EQ(a.inserts, b.inserts);
  EXPECT_EQ(a.duplicates, b.duplicates);
  EXPECT_EQ(a.splits, b.splits);
  EXPECT_EQ(a.page_splits, b.page_splits);
  EXPECT_EQ(a.right_sibling_inserts, b.right_sibling_inserts);
  EXPECT_EQ(a.root_raises, b.root_raises);
  EXPECT_EQ(a.pointer_scans, b.pointer_scans);
}

TEST(InnodbModelBatch, RandomKeysWithDuplicates) {
  std::mt19937_64 rng(7);
  std::vector<Key128> keys(60'000);
  for (auto& k : keys) k = Key128{rng() % 40'000} << 64 | rng() % 3;  // some repeat
  expect_batch_is_insert(keys, {.key_bytes = 16});
}

TEST(InnodbModelBatch, AscendingDescendingAndInterleavedRuns) {
  std::vector<std::uint64_t> keys;
  for (std::uint64_t i = 0; i < 30'000; ++i) keys.push_back(i * 8);              // ascending
  for (std::uint64_t i = 30'000; i > 0; --i) keys.push_back(1'000'000 + i * 8);  // descending
  for (std::uint64_t i = 0; i < 30'000; ++i) keys.push_back(2'000'000 + (i % 8) * 100'000 + i);
  expect_batch_is_insert(keys, {.key_bytes = 8, .payload_bytes = 200});
}

TEST(InnodbModelBatch, SecondaryIndexKeys) {
  std::mt19937_64 rng(9);
  std::vector<SecondaryKey> keys;
  for (std::uint64_t i = 0; i < 40'000; ++i) keys.push_back({rng() % 500, Key128{i}});
  expect_batch_is_insert(keys, {.key_bytes = 24, .clustered = false});
}

}  // namespace
}  // namespace idbench::locality
