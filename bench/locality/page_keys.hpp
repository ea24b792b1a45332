// page_keys.hpp — the sorted keys of one model page, kept in small blocks so that an insert
// moves a block's keys, not half the page's.
//
// A 16 KiB InnoDB page holds up to ~950 keys of the model. As one sorted array, a random
// insert moves half of them (2.5 KiB for UUIDs) and its binary search misses the cache at
// every step: that was most of the model's time. Here the keys are a sequence of blocks of at
// most kBlock keys (512 bytes), with each block's first key and size in small arrays beside
// them: a search reads those arrays and one block, an insert shifts at most one block. To the
// model it is still one sorted sequence indexed 0..size()-1, so the page-split rules keep
// working on positions; splitting a page hands whole blocks over.
//
// Invariants: no block is empty; firsts_[b] is block b's first key; slots_[b].n its size;
// size_ the sum of the sizes.
//
// Thread safety: thread-compatible.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "bench/locality/sorted_search.hpp"

namespace idbench::locality {

template <class Key>
class PageKeys {
 public:
  static constexpr std::size_t kBlock = std::max<std::size_t>(8, 512 / sizeof(Key));

  PageKeys() = default;
  PageKeys(const PageKeys& other) : firsts_(other.firsts_), size_(other.size_) {
    slots_.reserve(other.slots_.size());
    for (const Slot& s : other.slots_) slots_.push_back({std::make_unique<Block>(*s.block), s.n});
  }
  PageKeys(PageKeys&&) noexcept = default;
  PageKeys& operator=(const PageKeys& other) { return *this = PageKeys(other); }
  PageKeys& operator=(PageKeys&&) noexcept = default;
  ~PageKeys() = default;

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const Key& operator[](std::size_t pos) const {
    const auto [b, j] = locate(pos);
    return slots_[b].block->keys[j];
  }
  const Key& front() const { return firsts_.front(); }
  const Key& back() const { return slots_.back().block->keys[slots_.back().n - 1]; }

  // The position of the first key not less than (lower_bound) / greater than (upper_bound)
  // `key`, as std::lower_bound / std::upper_bound over the whole sequence would give it.
  std::size_t lower_bound(const Key& key) const {
    return bound([&key](const Key& k) { return k < key; });
  }
  std::size_t upper_bound(const Key& key) const {
    return bound([&key](const Key& k) { return !(key < k); });
  }

  void insert(std::size_t pos, Key key);  // by value: `key` may live in this page
  void set(std::size_t pos, const Key& key) {
    const auto [b, j] = locate(pos);
    slots_[b].block->keys[j] = key;
    if (j == 0) firsts_[b] = key;
  }
  void erase_front();
  // Keeps positions [0, m) and returns [m, size()) / keeps [m, size()) and returns [0, m).
  PageKeys split_off_back(std::size_t m);
  PageKeys split_off_front(std::size_t m);
  std::vector<Key> to_vector() const;

  // For InnodbModel::warm(): the arrays a search reads, in the order it reads them.
  const std::vector<Key>& firsts() const { return firsts_; }
  const Key* block_keys(std::size_t b) const { return slots_[b].block->keys; }
  std::size_t block_size(std::size_t b) const { return slots_[b].n; }
  std::size_t keys_before(std::size_t b) const { return before(b); }
  // Asks the cache for the directory arrays (a hint: reads nothing).
  void prefetch_directory() const {
    const char* f = reinterpret_cast<const char*>(firsts_.data());
    for (std::size_t l = 0; l < firsts_.size() * sizeof(Key); l += 64) __builtin_prefetch(f + l);
    const char* s = reinterpret_cast<const char*>(slots_.data());
    for (std::size_t l = 0; l < slots_.size() * sizeof(Slot); l += 64) __builtin_prefetch(s + l);
  }
  void prefetch_block(std::size_t b) const {
    const char* k = reinterpret_cast<const char*>(slots_[b].block->keys);
    for (std::size_t l = 0; l < slots_[b].n * sizeof(Key); l += 64) __builtin_prefetch(k + l, 1);
  }

 private:
  struct Block {
    Key keys[kBlock];
  };
  struct Slot {
    std::unique_ptr<Block> block;
    std::size_t n = 0;
  };

  // The block and offset of position `pos` < size().
  std::pair<std::size_t, std::size_t> locate(std::size_t pos) const {
    std::size_t b = 0;
    while (pos >= slots_[b].n) pos -= slots_[b++].n;
    return {b, pos};
  }
  std::size_t before(std::size_t b) const {  // keys in blocks [0, b)
    std::size_t n = 0;
    for (std::size_t i = 0; i < b; ++i) n += slots_[i].n;
    return n;
  }
  template <class Below>
  std::size_t bound(Below below) const {
    if (size_ == 0) return 0;
    // The last block whose first key sorts before the bound holds it (or ends right at it).
    std::size_t b = bound_position(firsts_.data(), firsts_.size(), below);
    b = b == 0 ? 0 : b - 1;
    return before(b) + bound_position(slots_[b].block->keys, slots_[b].n, below);
  }
  void add_block(std::size_t b);                 // an empty block at index b
  void split_block(std::size_t b, std::size_t j);  // keys j.. of block b into a new block b + 1
  std::size_t cut(std::size_t m);  // a block boundary at position m; returns its block index
  void move_blocks(PageKeys& to, std::size_t from, std::size_t end);

  std::vector<Slot> slots_;
  std::vector<Key> firsts_;
  std::size_t size_ = 0;
};

template <class Key>
void PageKeys<Key>::add_block(std::size_t b) {
  slots_.insert(slots_.begin() + static_cast<std::ptrdiff_t>(b), Slot{std::make_unique<Block>(), 0});
  firsts_.insert(firsts_.begin() + static_cast<std::ptrdiff_t>(b), Key{});
}

template <class Key>
void PageKeys<Key>::split_block(std::size_t b, std::size_t j) {
  add_block(b + 1);
  Slot& from = slots_[b];
  Slot& to = slots_[b + 1];
  std::copy(from.block->keys + j, from.block->keys + from.n, to.block->keys);
  to.n = from.n - j;
  from.n = j;
  firsts_[b + 1] = to.block->keys[0];
}

template <class Key>
void PageKeys<Key>::insert(std::size_t pos, Key key) {
  if (slots_.empty()) add_block(0);
  // The block that holds position pos, or ends right before it.
  std::size_t b = 0, j = pos;
  while (b + 1 < slots_.size() && j > slots_[b].n) j -= slots_[b++].n;
  if (slots_[b].n == kBlock) {
    if (j == kBlock) {  // at a full block's end (ascending keys): start the next block
      add_block(++b);
      j = 0;
    } else if (j == 0) {  // at its start (descending keys): a block before it
      add_block(b);
    } else {
      split_block(b, kBlock / 2);
      if (j > slots_[b].n) j -= slots_[b++].n;
    }
  }
  Slot& s = slots_[b];
  std::copy_backward(s.block->keys + j, s.block->keys + s.n, s.block->keys + s.n + 1);
  s.block->keys[j] = key;
  ++s.n;
  if (j == 0) firsts_[b] = key;
  ++size_;
}

template <class Key>
void PageKeys<Key>::erase_front() {
  Slot& s = slots_.front();
  std::copy(s.block->keys + 1, s.block->keys + s.n, s.block->keys);
  --size_;
  if (--s.n == 0) {
    slots_.erase(slots_.begin());
    firsts_.erase(firsts_.begin());
  } else {
    firsts_.front() = s.block->keys[0];
  }
}

template <class Key>
std::size_t PageKeys<Key>::cut(std::size_t m) {
  if (m == size_) return slots_.size();
  const auto [b, j] = locate(m);
  if (j == 0) return b;
  split_block(b, j);
  return b + 1;
}

template <class Key>
void PageKeys<Key>::move_blocks(PageKeys& to, std::size_t from, std::size_t end) {
  const auto f = static_cast<std::ptrdiff_t>(from), e = static_cast<std::ptrdiff_t>(end);
  for (std::size_t b = from; b < end; ++b) {
    to.size_ += slots_[b].n;
    size_ -= slots_[b].n;
  }
  to.slots_.insert(to.slots_.end(), std::make_move_iterator(slots_.begin() + f),
                   std::make_move_iterator(slots_.begin() + e));
  to.firsts_.insert(to.firsts_.end(), firsts_.begin() + f, firsts_.begin() + e);
  slots_.erase(slots_.begin() + f, slots_.begin() + e);
  firsts_.erase(firsts_.begin() + f, firsts_.begin() + e);
}

template <class Key>
PageKeys<Key> PageKeys<Key>::split_off_back(std::size_t m) {
  PageKeys tail;
  const std::size_t from = cut(m);  // before slots_.size(): it may add a block
  move_blocks(tail, from, slots_.size());
  return tail;
}

template <class Key>
PageKeys<Key> PageKeys<Key>::split_off_front(std::size_t m) {
  PageKeys head;
  move_blocks(head, 0, cut(m));
  return head;
}

template <class Key>
std::vector<Key> PageKeys<Key>::to_vector() const {
  std::vector<Key> out;
  out.reserve(size_);
  for (const Slot& s : slots_) out.insert(out.end(), s.block->keys, s.block->keys + s.n);
  return out;
}

}  // namespace idbench::locality
