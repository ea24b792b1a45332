// innodb_model.hpp — a model of one InnoDB clustered index (a B+tree keyed by the primary key)
// that reproduces where rows land, how full pages end up and when pages split.
//
// It is InnoDB's algorithm, not a generic B-tree. Each rule below is what MariaDB 10.11's
// storage/innobase does (file and function named, so a reader can check it):
//
//   * Page space (page0page.h, page0page.ic): 16 KiB pages; an empty COMPACT page offers
//     page_get_free_space_of_empty() = 16384 - 120 (headers, infimum, supremum) - 8 (trailer)
//     - 4 (two directory slots) = 16,252 bytes. Whether a record fits is decided with
//     page_get_max_insert_size_after_reorganize(): data + page_dir_calc_reserved_space(n + 1),
//     the directory being estimated at its largest, one 2-byte slot per 4 records.
//   * Records (rem0rec.cc, COMPACT/DYNAMIC): 5-byte header + key + DB_TRX_ID (6) +
//     DB_ROLL_PTR (7) + fixed-length payload on leaves; 5 + key + 4-byte child page number on
//     node-pointer pages. Fixed-length NOT NULL columns need no length byte and no null bitmap.
//   * The 1/16 reserve (btr0cur.cc, btr_cur_optimistic_insert): on a clustered-index leaf, an
//     insert that looks sequential (btr_page_get_split_rec_to_right or _to_left says so) fails
//     the optimistic path when dict_index_get_space_reserve() = page/16 plus the record would
//     not be left free. So sequential pages close at about 15/16, random ones fill completely.
//   * The garbage rule (same function): a page holding deleted records whose reorganized free
//     space is below BTR_CUR_PAGE_REORGANIZE_LIMIT (page/32) splits rather than reorganizes
//     when the record does not fit into contiguous free space.
//   * Before splitting, btr_page_split_and_insert tries btr_insert_into_right_sibling: an
//     insert at the end of a page goes to the start of the next page if it fits there.
//   * The split point (btr0btr.cc):
//       - btr_page_get_split_rec_to_right: the new record goes right after PAGE_LAST_INSERT.
//         With fewer than 2 records after the insert point the new record starts the new
//         upper page alone; otherwise "split all but 1 off": the record after the insert
//         point stays, the rest move up.
//       - btr_page_get_split_rec_to_left: the new record goes right before PAGE_LAST_INSERT
//         (descending inserts): the records before the insert point move to a new lower page.
//       - otherwise page_get_middle_rec(): records from the ((n + 2) / 2)-th on move up.
//   * PAGE_LAST_INSERT is set by every insert (page0cur.cc, page_cur_insert_rec_low). After a
//     split the source half forgets it if records were deleted from it and keeps it if none
//     moved; the new half remembers the last record copied onto it. (Sources disagree between
//     versions here; these are the semantics that reproduce MariaDB 10.11's leaf pages and
//     split counter exactly on the validation streams.)
//   * A full root is raised (btr_root_raise_and_insert): its records move to a new page one
//     level down, then that page is split. The root page never moves.
//   * Non-leaf levels use the same split rules (the reserve rule is leaf-only).
//
// Left out, and why: page merges (btr_compress) — an insert-only workload never deletes;
// the adaptive hash index and change buffer — they do not decide where records go (the
// change buffer never applies to a clustered index); ROW_FORMAT=COMPRESSED.
//
//   InnodbModel<std::uint64_t> model({.key_bytes = 8});
//   for (auto k : keys) model.insert(k);
//   model.leaf_pages();
//
// Thread safety: thread-compatible, not thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "bench/locality/page_keys.hpp"

namespace idbench::locality {

// InnoDB's page geometry, as constants with their source.
struct InnodbPage {
  static constexpr int kSize = 16384;  // innodb_page_size default (UNIV_PAGE_SIZE)
  // page_get_free_space_of_empty(comp=true): 16384 - PAGE_NEW_SUPREMUM_END (120) - FIL trailer
  // (8) - 2 directory slots (4).
  static constexpr int kUsable = 16252;
  static constexpr int kReserve = kSize / 16;          // dict_index_get_space_reserve()
  static constexpr int kReorganizeLimit = kSize / 32;  // BTR_CUR_PAGE_REORGANIZE_LIMIT
  static constexpr int kRecordHeader = 5;              // REC_N_NEW_EXTRA_BYTES
  static constexpr int kTrxIdBytes = 6;                // DATA_TRX_ID_LEN
  static constexpr int kRollPtrBytes = 7;              // DATA_ROLL_PTR_LEN
  static constexpr int kChildPageNo = 4;               // REC_NODE_PTR_SIZE
  // page_dir_calc_reserved_space(n): one 2-byte slot per PAGE_DIR_SLOT_MIN_N_OWNED (4) records.
  static constexpr int dir_reserved(long n) { return static_cast<int>((2 * n + 3) / 4); }
  // The largest record InnoDB keeps in-page: dict_index_too_big_for_tree (dict0dict.cc) and
  // page_zip_rec_needs_ext (page0zip.h) require rec_size < page_get_free_space_of_empty() / 2
  // = 8,126 bytes, so that two records always fit one page. Beyond it, DYNAMIC rows move
  // their longest variable-length columns off-page (a 20-byte BTR_EXTERN_FIELD_REF stays in
  // the record, the value goes to overflow pages of its own); a row of fixed-length columns
  // cannot shrink so, and CREATE TABLE fails with "Row size too large (> 8126)". The model
  // stores every record in-page and refuses larger ones rather than model overflow pages.
  static constexpr int kMaxRecordBytes = kUsable / 2 - 1;
};

// The largest fixed-length payload beside a key of `key_bytes` that keeps a clustered-index
// leaf record in-page: 8,099 B for BIGINT, 8,091 B for BINARY(16).
constexpr int max_payload_bytes(int key_bytes) {
  return InnodbPage::kMaxRecordBytes - (InnodbPage::kRecordHeader + key_bytes +
                                        InnodbPage::kTrxIdBytes + InnodbPage::kRollPtrBytes);
}

// How the split point is chosen. Only `innodb` is InnoDB; `middle_only` ignores
// PAGE_LAST_INSERT (no sequential split, no reserve) and exists as a planted defect, so the
// validation can show that it would catch a model that got the heuristics wrong.
enum class SplitRule { innodb, middle_only };

struct ModelOptions {
  int key_bytes = 8;      // BIGINT: 8, BINARY(16): 16; a secondary index: its column + the PK
  int payload_bytes = 0;  // fixed-length NOT NULL columns beside the key, 0..max_payload_bytes()
  SplitRule split_rule = SplitRule::innodb;
  // Record every leaf page read or created, for the window and buffer-pool metrics.
  bool trace = true;
  // false: a secondary index (dict_index_is_clust() false). Its leaf records are the indexed
  // column and the primary key only (row0row.cc row_build_index_entry: no DB_TRX_ID, no
  // DB_ROLL_PTR), its node pointers the same plus the child page (a non-unique index keeps the
  // PK in node pointers too), and the 1/16 reserve does not apply (btr_cur_optimistic_insert
  // checks dict_index_is_clust).
  bool clustered = true;

  int leaf_record_bytes() const {
    return InnodbPage::kRecordHeader + key_bytes +
           (clustered ? InnodbPage::kTrxIdBytes + InnodbPage::kRollPtrBytes : 0) + payload_bytes;
  }
  int node_ptr_bytes() const {
    return InnodbPage::kRecordHeader + key_bytes + InnodbPage::kChildPageNo;
  }
};

// One entry per leaf page an insert touched. Bit 31 marks a page the insert created (a split
// allocates it: no read from disk), bit 30 the first entry of an insert.
struct LeafTrace {
  static constexpr std::uint32_t kCreated = 1u << 31;
  static constexpr std::uint32_t kFirst = 1u << 30;
  static constexpr std::uint32_t kPageMask = kFirst - 1;
  std::vector<std::uint32_t> entries;
};

struct ModelCounters {
  std::uint64_t inserts = 0;
  std::uint64_t duplicates = 0;  // keys already present: skipped, as INSERT IGNORE would
  // Calls of btr_page_split_and_insert at every level, as INNODB_METRICS index_page_splits
  // counts them: page splits plus inserts that went to the right sibling instead.
  std::uint64_t splits = 0;
  std::uint64_t page_splits = 0;  // splits that allocated a page
  std::uint64_t leaf_splits = 0;
  std::uint64_t right_sibling_inserts = 0;
  std::uint64_t root_raises = 0;
  std::uint64_t pointer_scans = 0;  // right-sibling pointers found by a scan (see .cpp)
};

// A 128-bit key as one integer: one compare instead of two for BINARY(16) keys, which is
// what keeps the model above 2 M inserts/s on UUIDs. __extension__ silences -Wpedantic:
// the type is a GCC/Clang extension on every platform idbench builds on.
__extension__ using Key128 = unsigned __int128;

// A secondary index's key: the indexed BIGINT column, then the primary key (up to BINARY(16)),
// which InnoDB appends to make every entry unique and to find the row.
struct SecondaryKey {
  std::uint64_t column = 0;
  Key128 pk = 0;
  friend bool operator<(const SecondaryKey& a, const SecondaryKey& b) {
    return a.column != b.column ? a.column < b.column : a.pk < b.pk;
  }
  friend bool operator==(const SecondaryKey& a, const SecondaryKey& b) {
    return a.column == b.column && a.pk == b.pk;
  }
};

// Key: std::uint64_t (BIGINT UNSIGNED), Key128, SecondaryKey or any totally ordered value type
// such as idbench::Id (BINARY(16), which compares as big-endian bytes do).
template <class Key>
class InnodbModel {
 public:
  explicit InnodbModel(const ModelOptions& options);

  // Inserts one row. Returns false (and counts it) when the key is already present.
  bool insert(const Key& key);
  // Inserts keys[0..n) in order, exactly as n calls of insert() do; fresh[i] gets the i-th
  // result. Faster on large trees: it looks up a few keys' leaves ahead, so that their cache
  // misses overlap instead of queueing (innodb_model_prefetch.cpp).
  void insert_batch(const Key* keys, std::size_t n, bool* fresh);

  const ModelCounters& counters() const { return counters_; }
  const LeafTrace& trace() const { return trace_; }
  std::uint64_t leaf_pages() const { return leaf_pages_; }
  std::uint64_t total_pages() const { return pages_.size(); }
  int height() const;  // levels, a lone root leaf being 1
  std::uint64_t rows() const { return counters_.inserts; }
  // Record bytes on leaves over leaf_pages × 16,252 usable bytes.
  double avg_leaf_fill() const;
  const ModelOptions& options() const { return options_; }

  // For tests: the keys of each leaf from left to right.
  std::vector<std::vector<Key>> leaves() const;

 private:
  static constexpr std::uint32_t kNil = ~std::uint32_t{0};
  static constexpr std::size_t kWarmBatch = 16;

  struct Page {
    PageKeys<Key> keys;                // sorted
    std::vector<std::uint32_t> child;  // non-leaf only, parallel to keys
    std::uint32_t prev = kNil;
    std::uint32_t next = kNil;
    int level = 0;
    // Records ever allocated from the page heap, and those on the PAGE_FREE list (deleted by
    // a split, reusable). n_recs = keys.size() = heap_recs - free_recs.
    std::uint32_t heap_recs = 0;
    std::uint32_t free_recs = 0;
    bool has_last_insert = false;
    Key last_insert{};
  };
  struct PathStep {
    std::uint32_t page;
    std::size_t slot;  // index of the node pointer followed
  };

  int record_bytes(int level) const {
    return level == 0 ? options_.leaf_record_bytes() : options_.node_ptr_bytes();
  }
  std::uint32_t new_page(int level);
  // The page on `level` whose range holds `key`; `path` gets the (page, slot) of every
  // non-leaf page passed, and of the target itself when it is not a leaf.
  std::uint32_t descend(const Key& key, int level, std::vector<PathStep>& path) const;
  // insert() after the descent: `key` into its leaf `page`, reached through `path`, where
  // `pos` is the key's lower bound.
  bool insert_into_leaf(const Key& key, std::uint32_t page, std::size_t pos,
                        std::vector<PathStep>& path);
  // Descends for keys[0..n) (n <= kWarmBatch) into warmed_ and reads the leaf lines their
  // inserts will read, so that the misses overlap (innodb_model_prefetch.cpp).
  void warm(const Key* keys, std::size_t n);
  void touch(std::uint32_t page, std::uint32_t flags);
  bool optimistic_fits(const Page& p, std::size_t pos, int bytes) const;
  bool direct_fits(const Page& p, int bytes) const;
  bool looks_to_right(const Page& p, std::size_t pos) const;
  bool looks_to_left(const Page& p, std::size_t pos) const;
  void place(std::uint32_t page, std::size_t pos, const Key& key, std::uint32_t child);
  void insert_at(std::uint32_t page, std::size_t pos, const Key& key, std::uint32_t child,
                 std::vector<PathStep>& ancestors);
  // btr_page_split_and_insert: the right sibling if it takes the record, else a new page and
  // its node pointer one level up, then the record into its half.
  void split_and_insert(std::uint32_t page, std::size_t pos, const Key& key, std::uint32_t child,
                        std::vector<PathStep>& ancestors);
  // Where a full page splits (btr_page_get_split_rec_to_right, _to_left, page_get_middle_rec).
  struct SplitPoint {
    // The index of the first record of the upper half, or -1 when the new record itself is
    // the first record of the upper half (split_rec == NULL).
    long split = -1;
    bool up = true;  // FSP_UP: the new page is the upper half; false: FSP_DOWN, the lower
  };
  SplitPoint split_point(const Page& p, std::size_t pos, const Key& key) const;
  // Allocates the new page beside `page` and moves to it the records from `move_limit` on
  // (`up`) or before it; returns the new page.
  std::uint32_t split_page(std::uint32_t page, std::size_t move_limit, bool up);
  // FSP_UP: records [m, n) of `page` move to `fresh`, linked in after it.
  void move_upper_half(std::uint32_t page, std::uint32_t fresh, std::size_t m);
  // FSP_DOWN: records [0, m) of `page` move to `fresh`, linked in before it.
  void move_lower_half(std::uint32_t page, std::uint32_t fresh, std::size_t m);
  // The heap, PAGE_FREE and PAGE_LAST_INSERT of both pages once `neu`'s records moved there.
  static void hand_over_records(Page& old, Page& neu);
  bool insert_into_right_sibling(std::uint32_t page, const Key& key, std::uint32_t child);
  std::uint32_t raise_root(std::vector<PathStep>& ancestors);

  ModelOptions options_;
  std::vector<Page> pages_;
  std::uint32_t root_ = 0;
  std::uint64_t leaf_pages_ = 0;
  ModelCounters counters_;
  LeafTrace trace_;
  bool first_touch_ = false;
  std::vector<PathStep> path_;  // insert()'s descent, reused
  // Bumped by every change to a non-leaf page (a split, a root raise): a descent made since
  // the last bump still holds.
  std::uint64_t shape_ = 0;
  struct Descent {
    std::uint32_t leaf = 0;
    std::vector<PathStep> path;
    std::size_t pos = 0;        // the key's lower bound in the leaf
    std::size_t leaf_keys = 0;  // the leaf's size then: unchanged, `pos` still holds
  };
  std::array<Descent, kWarmBatch> warmed_;  // warm()'s descents, made at shape warm_shape_
  std::uint64_t warm_shape_ = 0;
};

}  // namespace idbench::locality
