// innodb_model.cpp — the InnoDB clustered-index model: inserts, splits, fill (innodb_model.hpp).
#include "bench/locality/innodb_model.hpp"

#include <algorithm>
#include <stdexcept>

#include "generators/id.hpp"

namespace idbench::locality {

template <class Key>
InnodbModel<Key>::InnodbModel(const ModelOptions& options) : options_(options) {
  if (options_.key_bytes <= 0 || options_.payload_bytes < 0 ||
      options_.leaf_record_bytes() > InnodbPage::kMaxRecordBytes) {
    // InnoDB keeps no larger record in-page (InnodbPage::kMaxRecordBytes says what it does).
    throw std::invalid_argument("record too large for the InnoDB model (max 8125 bytes in-page)");
  }
  root_ = new_page(0);
}

template <class Key>
std::uint32_t InnodbModel<Key>::new_page(int level) {
  pages_.emplace_back();
  pages_.back().level = level;
  if (level == 0) ++leaf_pages_;
  return static_cast<std::uint32_t>(pages_.size() - 1);
}

template <class Key>
void InnodbModel<Key>::touch(std::uint32_t page, std::uint32_t flags) {
  if (!options_.trace) return;
  if (first_touch_) {
    flags |= LeafTrace::kFirst;
    first_touch_ = false;
  }
  trace_.entries.push_back(page | flags);
}

template <class Key>
bool InnodbModel<Key>::looks_to_right(const Page& p, std::size_t pos) const {
  // btr_page_get_split_rec_to_right: PAGE_LAST_INSERT is the record the cursor is on, i.e.
  // the new record goes right after the previous insert. The infimum is never PAGE_LAST_INSERT.
  return p.has_last_insert && pos > 0 && p.keys[pos - 1] == p.last_insert;
}

template <class Key>
bool InnodbModel<Key>::looks_to_left(const Page& p, std::size_t pos) const {
  // btr_page_get_split_rec_to_left: PAGE_LAST_INSERT is the record after the cursor.
  return p.has_last_insert && pos < p.keys.size() && p.keys[pos] == p.last_insert;
}

template <class Key>
bool InnodbModel<Key>::optimistic_fits(const Page& p, std::size_t pos, int bytes) const {
  const long n = static_cast<long>(p.keys.size());
  // page_get_max_insert_size_after_reorganize(page, 1)
  const long occupied = n * bytes + InnodbPage::dir_reserved(n + 1);
  const long max_size = std::max(0L, InnodbPage::kUsable - occupied);
  if (max_size < bytes) return false;
  if (p.free_recs > 0 && max_size < InnodbPage::kReorganizeLimit && n > 1) {
    // page_get_max_insert_size(page, 1): contiguous space above the heap top, with the
    // directory estimated for every heap record (live or deleted).
    const long heap = p.heap_recs;
    const long contiguous =
        InnodbPage::kUsable - (heap * bytes + InnodbPage::dir_reserved(heap + 1));
    if (contiguous < bytes) return false;
  }
  if (p.level == 0 && options_.clustered && n >= 2 && options_.split_rule == SplitRule::innodb &&
      InnodbPage::kReserve + bytes > max_size &&
      (looks_to_right(p, pos) || looks_to_left(p, pos))) {
    return false;  // keep 1/16 free on a page that is being filled sequentially
  }
  return true;
}

template <class Key>
bool InnodbModel<Key>::direct_fits(const Page& p, int bytes) const {
  // page_cur_insert_rec_low: reuse the head of PAGE_FREE when it is large enough (all records
  // of a level have one size here), else allocate from the heap (page_mem_alloc_heap).
  if (p.free_recs > 0) return true;
  const long heap = p.heap_recs;
  return InnodbPage::kUsable - (heap * bytes + InnodbPage::dir_reserved(heap + 1)) >= bytes;
}

template <class Key>
void InnodbModel<Key>::place(std::uint32_t page, std::size_t pos, const Key& key,
                             std::uint32_t child) {
  Page& p = pages_[page];
  p.keys.insert(pos, key);
  if (p.level > 0) {
    p.child.insert(p.child.begin() + static_cast<std::ptrdiff_t>(pos), child);
    ++shape_;
  }
  if (p.free_recs > 0) {
    --p.free_recs;
  } else {
    ++p.heap_recs;
  }
  p.has_last_insert = true;
  p.last_insert = key;
}

template <class Key>
std::uint32_t InnodbModel<Key>::descend(const Key& key, int level,
                                        std::vector<PathStep>& path) const {
  std::uint32_t page = root_;
  while (pages_[page].level > level) {
    const Page& p = pages_[page];
    // PAGE_CUR_LE: the last node pointer not greater than the key; the leftmost pointer of a
    // level carries the minimum-record flag, so it matches every smaller key too.
    const std::size_t up = p.keys.upper_bound(key);
    const std::size_t slot = up == 0 ? 0 : up - 1;
    path.push_back({page, slot});
    page = p.child[slot];
  }
  // The slot followed on the target level itself, for callers that look for a pointer there.
  if (level > 0) {
    const Page& p = pages_[page];
    const std::size_t up = p.keys.upper_bound(key);
    const std::size_t slot = up == 0 ? 0 : up - 1;
    path.push_back({page, slot});
  }
  return page;
}

template <class Key>
bool InnodbModel<Key>::insert(const Key& key) {
  path_.clear();
  const std::uint32_t page = descend(key, 0, path_);
  return insert_into_leaf(key, page, pages_[page].keys.lower_bound(key), path_);
}

template <class Key>
bool InnodbModel<Key>::insert_into_leaf(const Key& key, std::uint32_t page, std::size_t pos,
                                        std::vector<PathStep>& path) {
  first_touch_ = true;
  const Page& leaf = pages_[page];
  touch(page, 0);
  if (pos != leaf.keys.size() && leaf.keys[pos] == key) {
    ++counters_.duplicates;
    return false;
  }
  insert_at(page, pos, key, kNil, path);
  ++counters_.inserts;
  return true;
}

template <class Key>
void InnodbModel<Key>::insert_at(std::uint32_t page, std::size_t pos, const Key& key,
                                 std::uint32_t child, std::vector<PathStep>& ancestors) {
  if (optimistic_fits(pages_[page], pos, record_bytes(pages_[page].level))) {
    place(page, pos, key, child);
    return;
  }
  // btr_cur_pessimistic_insert: a full root is raised first, then the new child is split.
  if (page == root_) page = raise_root(ancestors);
  split_and_insert(page, pos, key, child, ancestors);
}

template <class Key>
std::uint32_t InnodbModel<Key>::raise_root(std::vector<PathStep>& ancestors) {
  const int level = pages_[root_].level;
  const std::uint32_t moved = new_page(level);
  Page& root = pages_[root_];
  Page& child = pages_[moved];
  child.keys = std::move(root.keys);
  child.child = std::move(root.child);
  child.heap_recs = static_cast<std::uint32_t>(child.keys.size());
  // btr_root_raise_and_insert copies the records with page_copy_rec_list_end() onto a page
  // it has just created; that leaves no PAGE_LAST_INSERT (checked against MariaDB: keeping
  // the last record here overstates sequential splits right after the raise).
  root = Page{};
  root.level = level + 1;
  if (level == 0) --leaf_pages_;
  ++counters_.root_raises;
  ++shape_;
  place(root_, 0, pages_[moved].keys.front(), moved);
  ancestors.assign(1, PathStep{root_, 0});
  if (level == 0) touch(moved, LeafTrace::kCreated);
  return moved;
}

template <class Key>
bool InnodbModel<Key>::insert_into_right_sibling(std::uint32_t page, const Key& key,
                                                 std::uint32_t child) {
  const std::uint32_t right = pages_[page].next;
  const int level = pages_[right].level;
  if (!direct_fits(pages_[right], record_bytes(level))) return false;
  const Key old_first = pages_[right].keys.front();
  place(right, 0, key, child);
  if (level == 0) touch(right, 0);
  ++counters_.right_sibling_inserts;
  // btr_insert_into_right_sibling then deletes the right page's node pointer and inserts a
  // new one with the new first key (btr_cur_pessimistic_delete + btr_insert_on_non_leaf_level).
  std::vector<PathStep> path;
  std::uint32_t father = descend(old_first, level + 1, path);
  std::size_t slot = path.back().slot;
  if (pages_[father].child[slot] != right) {
    // Rare: an earlier pointer move left this key routed to a neighbour. Find the pointer by
    // scanning its level; without a path upstairs the pointer is replaced in place.
    path.clear();
    for (std::uint32_t id = 0; id < pages_.size() && path.empty(); ++id) {
      const Page& q = pages_[id];
      if (q.level != level + 1) continue;
      const auto it = std::find(q.child.begin(), q.child.end(), right);
      if (it != q.child.end()) path.push_back({id, static_cast<std::size_t>(it - q.child.begin())});
    }
    if (path.empty()) throw std::logic_error("model: node pointer of right page lost");
    father = path.back().page;
    slot = path.back().slot;
    ++counters_.pointer_scans;
  }
  Page& f = pages_[father];
  if (slot > 0 || f.prev == kNil || f.keys.size() < 2 || path.size() < 2) {
    // The new key sorts where the old one was: the pointer is replaced in place.
    f.keys.set(slot, key);
    f.has_last_insert = true;
    f.last_insert = key;
    return true;
  }
  // The pointer was the first record of a father that is not leftmost on its level. Deleting
  // it raises the father's own key upstairs to its next record; the new pointer, now smaller
  // than that key, is inserted from the root and lands at the end of the father's left
  // sibling.
  f.keys.erase_front();
  f.child.erase(f.child.begin());
  ++f.free_recs;
  f.has_last_insert = false;  // page_cur_delete_rec resets PAGE_LAST_INSERT
  if (path.size() >= 2) {
    const PathStep& grand = path[path.size() - 2];
    pages_[grand.page].keys.set(grand.slot, pages_[father].keys.front());
  }
  std::vector<PathStep> to_father;
  const std::uint32_t left_father = descend(key, level + 1, to_father);
  to_father.pop_back();
  const Page& lf = pages_[left_father];
  const std::size_t pos = lf.keys.upper_bound(key);
  insert_at(left_father, pos, key, right, to_father);
  return true;
}

template <class Key>
auto InnodbModel<Key>::split_point(const Page& p, std::size_t pos, const Key& key) const
    -> SplitPoint {
  const std::size_t n = p.keys.size();
  const bool innodb = options_.split_rule == SplitRule::innodb;
  if (innodb && looks_to_right(p, pos)) {
    // Fewer than 2 records after the insert point: the new record starts the new page.
    return {pos + 1 < n ? static_cast<long>(pos) + 1 : -1, true};
  }
  if (innodb && looks_to_left(p, pos)) {
    // FSP_DOWN: the new page is the lower half. split_rec is the cursor record; if that is the
    // infimum or the first user record, the record after it, "so as not to move lots of
    // records smaller than the convergence point".
    return {pos <= 1 ? static_cast<long>(pos) : static_cast<long>(pos) - 1, false};
  }
  if (n > 1) return {static_cast<long>((n + 2) / 2) - 1, true};  // page_get_middle_rec(), 0-based
  return {key < p.keys.front() ? 0 : -1, true};
}

template <class Key>
void InnodbModel<Key>::move_upper_half(std::uint32_t page, std::uint32_t fresh, std::size_t m) {
  Page& old = pages_[page];
  Page& neu = pages_[fresh];
  neu.keys = old.keys.split_off_back(m);
  if (old.level > 0) {
    neu.child.assign(old.child.begin() + static_cast<std::ptrdiff_t>(m), old.child.end());
    old.child.resize(m);
  }
  neu.next = old.next;
  neu.prev = page;
  if (old.next != kNil) pages_[old.next].prev = fresh;
  old.next = fresh;
}

template <class Key>
void InnodbModel<Key>::move_lower_half(std::uint32_t page, std::uint32_t fresh, std::size_t m) {
  Page& old = pages_[page];
  Page& neu = pages_[fresh];
  neu.keys = old.keys.split_off_front(m);
  if (old.level > 0) {
    neu.child.assign(old.child.begin(), old.child.begin() + static_cast<std::ptrdiff_t>(m));
    old.child.erase(old.child.begin(), old.child.begin() + static_cast<std::ptrdiff_t>(m));
  }
  neu.prev = old.prev;
  neu.next = page;
  if (old.prev != kNil) pages_[old.prev].next = fresh;
  old.prev = fresh;
}

template <class Key>
void InnodbModel<Key>::hand_over_records(Page& old, Page& neu) {
  // Moved records leave the source page as deleted records on its PAGE_FREE list; the new
  // page receives them as heap records. PAGE_LAST_INSERT, which decides the next split
  // (validated against MariaDB 10.11 record for record, see the README):
  //   * the source page forgets it when records were deleted from it
  //     (page_delete_rec_list_end/start reset it), and keeps it when nothing moved — an insert
  //     at the end splits off an empty page, and page_delete_rec_list_end returns at once for
  //     "no records bigger than the supremum";
  //   * the new page remembers the last record copied onto it, since the copy inserts record
  //     by record.
  const auto moved = static_cast<std::uint32_t>(neu.keys.size());
  neu.heap_recs = moved;
  old.free_recs += moved;
  if (moved > 0) {
    old.has_last_insert = false;
    neu.has_last_insert = true;
    neu.last_insert = neu.keys.back();
  }
}

template <class Key>
std::uint32_t InnodbModel<Key>::split_page(std::uint32_t page, std::size_t move_limit, bool up) {
  const int level = pages_[page].level;
  ++counters_.page_splits;
  if (level == 0) ++counters_.leaf_splits;
  const std::uint32_t fresh = new_page(level);  // invalidates references into pages_
  if (up) {
    move_upper_half(page, fresh, move_limit);
  } else {
    move_lower_half(page, fresh, move_limit);
  }
  hand_over_records(pages_[page], pages_[fresh]);
  if (level == 0) touch(fresh, LeafTrace::kCreated);
  return fresh;
}

template <class Key>
void InnodbModel<Key>::split_and_insert(std::uint32_t page, std::size_t pos, const Key& key,
                                        std::uint32_t child, std::vector<PathStep>& ancestors) {
  // INNODB_METRICS index_page_splits counts every call of btr_page_split_and_insert, also
  // those that end in btr_insert_into_right_sibling without a new page: so does `splits`.
  ++counters_.splits;
  ++shape_;
  {
    const Page& p = pages_[page];
    if (pos == p.keys.size() && p.next != kNil && insert_into_right_sibling(page, key, child)) {
      return;
    }
  }
  const SplitPoint at = split_point(pages_[page], pos, key);
  const bool insert_left =
      at.split >= 0 && key < pages_[page].keys[static_cast<std::size_t>(at.split)];
  // move_limit: FSP_UP moves the records from it on up, FSP_DOWN those before it down. Without
  // a split record the new record alone starts the upper page.
  const std::size_t move_limit = at.split >= 0 ? static_cast<std::size_t>(at.split) : pos;
  const Key upper_first = at.split >= 0 ? pages_[page].keys[move_limit] : key;
  const std::uint32_t fresh = split_page(page, move_limit, at.up);
  const std::uint32_t lower = at.up ? page : fresh;
  const std::uint32_t upper = at.up ? fresh : page;

  // btr_attach_half_pages: in FSP_DOWN the father's pointer now names the new lower page;
  // then the upper half's node pointer goes right after the lower half's.
  PathStep parent = ancestors.back();
  ancestors.pop_back();
  if (!at.up) pages_[parent.page].child[parent.slot] = lower;
  insert_at(parent.page, parent.slot + 1, upper_first, upper, ancestors);

  const std::uint32_t target = insert_left ? lower : upper;
  const Page& t = pages_[target];
  place(target, t.keys.lower_bound(key), key, child);
}

template <class Key>
int InnodbModel<Key>::height() const {
  return pages_[root_].level + 1;
}

template <class Key>
double InnodbModel<Key>::avg_leaf_fill() const {
  if (leaf_pages_ == 0) return 0;
  return static_cast<double>(counters_.inserts) * options_.leaf_record_bytes() /
         (static_cast<double>(leaf_pages_) * InnodbPage::kUsable);
}

template <class Key>
std::vector<std::vector<Key>> InnodbModel<Key>::leaves() const {
  std::vector<std::vector<Key>> out;
  std::uint32_t page = root_;
  while (pages_[page].level > 0) page = pages_[page].child.front();
  for (; page != kNil; page = pages_[page].next) out.push_back(pages_[page].keys.to_vector());
  return out;
}

template class InnodbModel<std::uint64_t>;
template class InnodbModel<Id>;
template class InnodbModel<Key128>;
template class InnodbModel<SecondaryKey>;

}  // namespace idbench::locality
