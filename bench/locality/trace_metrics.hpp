// trace_metrics.hpp — what a stream of inserts costs a buffer pool, computed from the model's
// leaf trace (innodb_model.hpp's LeafTrace): one entry per leaf page an insert read or created.
//
//   * distinct_leaves_per_1k: the mean, over consecutive non-overlapping windows of 1,000
//     inserts, of the number of distinct leaf pages the window touched. Sequential keys touch
//     1-2 pages per window; uniformly random keys touch close to 1,000.
//   * pool_miss_rate: an LRU pool of `pool_pages` leaf pages; a read of a leaf not in the pool
//     is a miss. A page created by a split enters the pool without a read (InnoDB allocates it
//     in memory). Non-leaf pages are assumed resident: there are ~1/600 as many of them and
//     InnoDB's LRU keeps them hot, so a pool too small for them is not a case worth modelling.
//     Plain LRU, the textbook pool; InnoDB's midpoint insertion (innodb_old_blocks_pct) only
//     protects against scans, which an insert-only workload does not do.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>

#include "bench/locality/innodb_model.hpp"

namespace idbench::locality {

double distinct_leaves_per_1k(const LeafTrace& trace, std::uint64_t total_pages);

struct PoolStats {
  std::uint64_t reads = 0;
  std::uint64_t misses = 0;
  double miss_rate() const { return reads == 0 ? 0.0 : static_cast<double>(misses) / reads; }
};
PoolStats simulate_lru(const LeafTrace& trace, std::uint64_t total_pages, std::uint64_t pool_pages);

}  // namespace idbench::locality
