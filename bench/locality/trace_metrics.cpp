// trace_metrics.cpp — figures from the model's page-access trace: distinct leaves, LRU misses.
#include "bench/locality/trace_metrics.hpp"

#include <vector>

namespace idbench::locality {

double distinct_leaves_per_1k(const LeafTrace& trace, std::uint64_t total_pages) {
  constexpr std::uint64_t kWindow = 1000;
  std::uint64_t inserts = 0;
  for (std::uint32_t e : trace.entries) inserts += (e & LeafTrace::kFirst) ? 1 : 0;
  // Only complete windows count: a short last window would understate a random stream. A
  // stream shorter than one window is scaled to 1,000 inserts.
  const std::uint64_t full = inserts / kWindow;
  const std::uint64_t counted = full == 0 ? inserts : full * kWindow;
  // last_window[p] = 1 + the window that last counted page p: no clearing between windows.
  std::vector<std::uint64_t> last_window(total_pages, 0);
  std::uint64_t seen = 0, distinct = 0;
  for (std::uint32_t e : trace.entries) {
    if (e & LeafTrace::kFirst) ++seen;
    if (seen > counted) break;
    const std::uint64_t window = (seen - 1) / kWindow + 1;
    const std::uint32_t page = e & LeafTrace::kPageMask;
    if (last_window[page] != window) {
      last_window[page] = window;
      ++distinct;
    }
  }
  if (counted == 0) return 0;
  return full == 0 ? static_cast<double>(distinct) * kWindow / static_cast<double>(counted)
                   : static_cast<double>(distinct) / static_cast<double>(full);
}

PoolStats simulate_lru(const LeafTrace& trace, std::uint64_t total_pages,
                       std::uint64_t pool_pages) {
  // An intrusive doubly linked list over page ids (dense, 0..total_pages-1): O(1) per access
  // with no hashing.
  constexpr std::uint32_t kNil = ~std::uint32_t{0};
  std::vector<std::uint32_t> prev(total_pages, kNil), next(total_pages, kNil);
  std::vector<char> resident(total_pages, 0);
  std::uint32_t head = kNil, tail = kNil;  // head = most recently used
  std::uint64_t size = 0;
  auto unlink = [&](std::uint32_t p) {
    if (prev[p] != kNil)
      next[prev[p]] = next[p];
    else
      head = next[p];
    if (next[p] != kNil)
      prev[next[p]] = prev[p];
    else
      tail = prev[p];
    prev[p] = next[p] = kNil;
  };
  auto push_front = [&](std::uint32_t p) {
    prev[p] = kNil;
    next[p] = head;
    if (head != kNil) prev[head] = p;
    head = p;
    if (tail == kNil) tail = p;
  };
  PoolStats stats;
  if (pool_pages == 0) pool_pages = 1;
  for (std::uint32_t e : trace.entries) {
    const std::uint32_t page = e & LeafTrace::kPageMask;
    if (!(e & LeafTrace::kCreated)) {
      ++stats.reads;
      if (!resident[page]) ++stats.misses;
    }
    if (resident[page]) {
      unlink(page);
    } else {
      if (size == pool_pages) {
        const std::uint32_t victim = tail;
        unlink(victim);
        resident[victim] = 0;
        --size;
      }
      resident[page] = 1;
      ++size;
    }
    push_front(page);
  }
  return stats;
}

}  // namespace idbench::locality
