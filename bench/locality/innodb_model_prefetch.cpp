// innodb_model_prefetch.cpp — InnodbModel::insert_batch: inserts whose searches overlap in
// memory (innodb_model.hpp).
//
// On a tree larger than the caches an insert waits on memory at its leaf: a chain of dependent
// loads (the leaf's block directory, then one block of keys) that miss the cache. insert_batch
// descends for kWarmBatch keys together. The non-leaf levels (under 1 % of the pages; they
// stay cached) are searched with insert()'s own search, level by level. The leaf level is
// searched one step of every key per round, so a round's loads are independent and their
// misses are served at once, and the leaf lines the inserts will read and shift are asked
// for. Then it inserts the keys one by one from those descents (or descends anew after a
// split: warm() notes the tree's shape). The warm-up only reads: the model's state, and so
// every figure it reports, is insert()'s.
#include <algorithm>
#include <cstdint>

#include "bench/locality/innodb_model.hpp"
#include "bench/locality/sorted_search.hpp"
#include "generators/id.hpp"

namespace idbench::locality {

namespace {

constexpr std::size_t kLanes = 16;  // InnodbModel::kWarmBatch

// One lower-bound search per lane, stepped in lockstep over at[i] (size[i] keys); each ends on
// the key whose comparison decides its bound.
template <class Key>
void lockstep_search(const Key* keys, const Key** at, std::size_t* size, std::size_t n) {
  for (bool more = true; more;) {
    more = false;
    for (std::size_t i = 0; i < n; ++i) {
      if (size[i] <= 1) continue;
      const Key& key = keys[i];
      at[i] = search_step(at[i], size[i], [&key](const Key& k) { return k < key; });
      more = true;
    }
  }
}

// out[i] = pages[i]->lower_bound(keys[i]) for i < n, in lockstep, asking for each page's
// directory and the rest of each key's block on the way.
template <class Key>
void lower_bounds_in_lockstep(const PageKeys<Key>* const* pages, const Key* keys, std::size_t n,
                              std::size_t* out) {
  const Key* at[kLanes] = {};
  std::size_t size[kLanes] = {}, block[kLanes] = {};
  for (std::size_t i = 0; i < n; ++i) pages[i]->prefetch_directory();
  for (std::size_t i = 0; i < n; ++i) {
    at[i] = pages[i]->firsts().data();
    size[i] = pages[i]->firsts().size();
  }
  lockstep_search(keys, at, size, n);
  for (std::size_t i = 0; i < n; ++i) {
    if (pages[i]->empty()) continue;
    const std::size_t p = static_cast<std::size_t>(at[i] - pages[i]->firsts().data()) +
                          (*at[i] < keys[i] ? 1 : 0);
    block[i] = p == 0 ? 0 : p - 1;  // PageKeys::bound's block
    pages[i]->prefetch_block(block[i]);
    at[i] = pages[i]->block_keys(block[i]);
    size[i] = pages[i]->block_size(block[i]);
  }
  lockstep_search(keys, at, size, n);
  for (std::size_t i = 0; i < n; ++i) {
    if (pages[i]->empty()) {
      out[i] = 0;
      continue;
    }
    const Key* first = pages[i]->block_keys(block[i]);
    out[i] = pages[i]->keys_before(block[i]) + static_cast<std::size_t>(at[i] - first) +
             (*at[i] < keys[i] ? 1 : 0);
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
  // descend(key, 0, path) for every key, level by level (all leaves are at level 0): a level's
  // searches are independent, so the processor overlaps them. Calling descend() key by key
  // (the same steps, one key's levels in a chain) measured ~8 % slower.
  for (int level = pages_[root_].level; level > 0; --level) {
    for (std::size_t i = 0; i < n; ++i) pos[i] = pages_[warmed_[i].leaf].keys.upper_bound(keys[i]);
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t slot = pos[i] == 0 ? 0 : pos[i] - 1;
      warmed_[i].path.push_back({warmed_[i].leaf, slot});
      warmed_[i].leaf = pages_[warmed_[i].leaf].child[slot];
    }
  }
  for (std::size_t i = 0; i < n; ++i) page_keys[i] = &pages_[warmed_[i].leaf].keys;
  lower_bounds_in_lockstep(page_keys, keys, n, pos);  // insert()'s leaf search
  for (std::size_t i = 0; i < n; ++i) {
    warmed_[i].pos = pos[i];
    warmed_[i].leaf_keys = page_keys[i]->size();
  }
}

template <class Key>
void InnodbModel<Key>::insert_batch(const Key* keys, std::size_t n, bool* fresh) {
  for (std::size_t done = 0; done < n; done += kWarmBatch) {
    const std::size_t batch = std::min(kWarmBatch, n - done);
    warm(keys + done, batch);
    for (std::size_t i = done; i < done + batch; ++i) {
      // A split since warm() may have moved the key's leaf: then insert() descends anew. An
      // insert into the same leaf (its size changed) moves the key's position in it.
      Descent& d = warmed_[i - done];
      if (shape_ != warm_shape_) {
        fresh[i] = insert(keys[i]);
        continue;
      }
      const PageKeys<Key>& leaf = pages_[d.leaf].keys;
      const std::size_t pos = leaf.size() == d.leaf_keys ? d.pos : leaf.lower_bound(keys[i]);
      fresh[i] = insert_into_leaf(keys[i], d.leaf, pos, d.path);
    }
  }
}

// The rest of the class is instantiated in innodb_model.cpp.
template void InnodbModel<std::uint64_t>::insert_batch(const std::uint64_t*, std::size_t, bool*);
template void InnodbModel<Id>::insert_batch(const Id*, std::size_t, bool*);
template void InnodbModel<Key128>::insert_batch(const Key128*, std::size_t, bool*);
template void InnodbModel<SecondaryKey>::insert_batch(const SecondaryKey*, std::size_t, bool*);

}  // namespace idbench::locality
