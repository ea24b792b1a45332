// innodb_model_prefetch.cpp — InnodbModel::insert_batch: inserts whose searches overlap in
// memory (innodb_model.hpp).
//
// On a tree larger than the caches an insert waits on memory: each level of its descent is a
// chain of dependent loads (a page's block directory, then one block of keys), and the leaf's
// miss the cache. insert_batch descends for kWarmBatch keys together, one search step of every
// key per round, so a round's loads are independent and their misses are served at once; it
// asks for the leaf lines the inserts will read and shift; then it inserts the keys one by one
// from those descents (or descends anew after a split: warm() notes the tree's shape). The
// warm-up only reads: the model's state, and so every figure it reports, is insert()'s.
#include <algorithm>
#include <cstdint>

#include "bench/locality/innodb_model.hpp"
#include "bench/locality/sorted_search.hpp"
#include "generators/id.hpp"

namespace idbench::locality {

namespace {

constexpr std::size_t kLanes = 16;  // InnodbModel::kWarmBatch

// One search per lane, stepped in lockstep over at[i] (size[i] keys); each ends on the key
// whose comparison decides its bound.
template <bool kUpper, class Key>
void lockstep_search(const Key* keys, const Key** at, std::size_t* size, std::size_t n) {
  for (bool more = true; more;) {
    more = false;
    for (std::size_t i = 0; i < n; ++i) {
      if (size[i] <= 1) continue;
      const Key& key = keys[i];
      at[i] = search_step(at[i], size[i], [&key](const Key& k) {
        return kUpper ? !(key < k) : k < key;
      });
      more = true;
    }
  }
}

template <bool kUpper, class Key>
std::size_t past(const Key* at, const Key& key) {
  return kUpper ? (key < *at ? 0 : 1) : (*at < key ? 1 : 0);
}

// out[i] = pages[i]->upper_bound(keys[i]) (kUpper) or lower_bound, for i < n, in lockstep;
// with `prefetch`, also asks for the rest of each key's block.
template <bool kUpper, class Key>
void bounds_in_lockstep(const PageKeys<Key>* const* pages, const Key* keys, std::size_t n,
                        bool prefetch, std::size_t* out) {
  const Key* at[kLanes] = {};
  std::size_t size[kLanes] = {}, block[kLanes] = {};
  for (std::size_t i = 0; i < n; ++i) pages[i]->prefetch_directory();
  for (std::size_t i = 0; i < n; ++i) {
    at[i] = pages[i]->firsts().data();
    size[i] = pages[i]->firsts().size();
  }
  lockstep_search<kUpper>(keys, at, size, n);
  for (std::size_t i = 0; i < n; ++i) {
    if (pages[i]->empty()) continue;
    const std::size_t p = static_cast<std::size_t>(at[i] - pages[i]->firsts().data()) +
                          past<kUpper>(at[i], keys[i]);
    block[i] = p == 0 ? 0 : p - 1;  // PageKeys::bound's block
    if (prefetch) pages[i]->prefetch_block(block[i]);
    at[i] = pages[i]->block_keys(block[i]);
    size[i] = pages[i]->block_size(block[i]);
  }
  lockstep_search<kUpper>(keys, at, size, n);
  for (std::size_t i = 0; i < n; ++i) {
    if (pages[i]->empty()) {
      out[i] = 0;
      continue;
    }
    const Key* first = pages[i]->block_keys(block[i]);
    out[i] = pages[i]->keys_before(block[i]) + static_cast<std::size_t>(at[i] - first) +
             past<kUpper>(at[i], keys[i]);
  }
}

}  // namespace

template <class Key>
void InnodbModel<Key>::warm(const Key* keys, std::size_t n) {
  static_assert(kWarmBatch == kLanes);
  warm_shape_ = shape_;
  const PageKeys<Key>* page_keys[kLanes] = {};
  std::size_t pos[kLanes] = {};
  for (std::size_t i = 0; i < n; ++i) {
    warmed_[i].path.clear();
    warmed_[i].leaf = root_;
  }
  // descend(key, 0, path) for every key, level by level (all leaves are at level 0).
  for (int level = pages_[root_].level; level >= 0; --level) {
    for (std::size_t i = 0; i < n; ++i) page_keys[i] = &pages_[warmed_[i].leaf].keys;
    if (level == 0) {
      bounds_in_lockstep<false>(page_keys, keys, n, true, pos);  // insert()'s leaf search
      break;
    }
    bounds_in_lockstep<true>(page_keys, keys, n, false, pos);
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t slot = pos[i] == 0 ? 0 : pos[i] - 1;
      warmed_[i].path.push_back({warmed_[i].leaf, slot});
      warmed_[i].leaf = pages_[warmed_[i].leaf].child[slot];
    }
  }
  std::uintptr_t sink = 0;
  for (std::size_t i = 0; i < n; ++i) sink ^= pos[i];
  warm_sink_ ^= sink;
}

template <class Key>
void InnodbModel<Key>::insert_batch(const Key* keys, std::size_t n, bool* fresh) {
  for (std::size_t done = 0; done < n; done += kWarmBatch) {
    const std::size_t batch = std::min(kWarmBatch, n - done);
    warm(keys + done, batch);
    for (std::size_t i = done; i < done + batch; ++i) {
      // A split since warm() may have moved the key's leaf: then insert() descends anew.
      Descent& d = warmed_[i - done];
      fresh[i] = shape_ == warm_shape_ ? insert_into_leaf(keys[i], d.leaf, d.path) : insert(keys[i]);
    }
  }
}

// The rest of the class is instantiated in innodb_model.cpp.
template void InnodbModel<std::uint64_t>::insert_batch(const std::uint64_t*, std::size_t, bool*);
template void InnodbModel<Id>::insert_batch(const Id*, std::size_t, bool*);
template void InnodbModel<Key128>::insert_batch(const Key128*, std::size_t, bool*);
template void InnodbModel<SecondaryKey>::insert_batch(const SecondaryKey*, std::size_t, bool*);

}  // namespace idbench::locality
