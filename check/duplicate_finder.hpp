// duplicate_finder.hpp — duplicates among any number of IDs, in bounded memory.
//
//   DuplicateFinder f(IdWidth::bits64, /*budget_bytes=*/1 << 30);
//   for (...) f.add(id);              // the n-th ID added has position n - 1
//   DuplicateSummary s = f.finish(5);  // counts, and the 5 smallest duplicated values
//
// Below the budget the IDs, each with its position, are held in memory, radix-sorted and
// scanned for equal neighbours. Above it they are spilled to 256 partition files in a private
// temp dir (plumbing::TempDir: removed on exit, swept at the next start after a SIGKILL), and
// each partition is sorted in memory in turn; a partition still over budget is split again.
// While the partitions exist, SIGINT/SIGTERM/SIGHUP are caught (plumbing::InterruptGuard):
// finish() and a reading IdReader then throw plumbing::Interrupted (exit 130), and the
// unwinding removes the partitions.
//
// Partitions are chosen by a hash of the whole value, not by its top bits: the IDs of one run
// of a time-ordered generator share their top bits (a billion Snowflake IDs span minutes),
// so top-bit partitions would all be one. Equal values hash equal, so duplicates still meet.
//
// Memory: 2 × (16 bytes per 64-bit ID, 24 per UUID) for the in-memory part (records and the
// sort's scratch), plus 256 write buffers of 64 KiB once spilled. Disk when spilled: 16 or
// 24 bytes per ID under $TMPDIR. Only a value made of one ID repeated more often than the
// budget holds can exceed the budget (it cannot be split by any hash).
//
// Thread safety: thread-compatible.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "generators/id.hpp"

namespace idbench {

struct DuplicateSummary {
  // Extra copies: a value seen 3 times counts 2 (total minus distinct).
  std::uint64_t duplicates = 0;
  // Distinct values seen more than once.
  std::uint64_t duplicated_values = 0;
  struct Example {
    Id id;
    std::uint64_t occurrences = 0;
    std::vector<std::uint64_t> positions;  // ascending; at most kMaxPlaces of them
  };
  // The smallest duplicated values, ascending.
  std::vector<Example> examples;
  bool spilled = false;  // partitions went to disk
  static constexpr std::size_t kMaxPlaces = 100;
};

class DuplicateFinder {
 public:
  DuplicateFinder(IdWidth width, std::uint64_t budget_bytes);
  ~DuplicateFinder();
  DuplicateFinder(DuplicateFinder&&) noexcept;
  DuplicateFinder& operator=(DuplicateFinder&&) noexcept;

  // A hint: about `n` more IDs will come. Above the budget, spilling starts at once.
  void expect(std::uint64_t n);
  void add(const Id& id);
  std::uint64_t added() const;
  // Ends the search; the finder is empty afterwards. Throws Error if temp space fails.
  DuplicateSummary finish(std::size_t max_examples);

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// What `check` may use when the user does not say: a quarter of MemAvailable, and no more
// than half of what RLIMIT_AS / RLIMIT_DATA leave above the process's present size.
std::uint64_t default_memory_budget();

}  // namespace idbench
