// checker.hpp — the duplicate finder and order checker every idbench tool trusts.
//
// `check_streams` takes streams of IDs (one per file, thread or node) and reports
//   * duplicates: IDs equal to an ID seen before, across all streams, with the first few
//     values and every place each of them occurs;
//   * order violations per stream: positions where an ID is smaller than the one before it
//     (an equal neighbour is a duplicate, not an order violation).
//
// How: all IDs are copied into one array and LSD radix-sorted (16-bit digits, passes whose
// digit is the same for every key skipped, which time-ordered IDs make common), then equal
// neighbours are counted. Cost: 8 + 8 bytes per 64-bit ID (the copy and the radix buffer) on
// top of the streams themselves, 32 bytes per 128-bit ID; linear time.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "check/id_file.hpp"

namespace idbench {

struct DuplicatePlace {
  std::size_t stream = 0;  // index into the streams given
  std::size_t index = 0;   // 0-based position in that stream
};

struct DuplicateExample {
  Id id;
  std::size_t occurrences = 0;
  std::vector<DuplicatePlace> places;  // every place it occurs
};

struct StreamReport {
  std::string name;
  std::size_t count = 0;
  std::size_t order_violations = 0;
  std::size_t first_violation = 0;  // index of the first, when there is one
};

struct CheckReport {
  std::size_t total = 0;
  // IDs that repeat an earlier one: total minus distinct.
  std::size_t duplicates = 0;
  std::vector<DuplicateExample> examples;
  std::vector<StreamReport> streams;

  std::size_t order_violations() const;
};

// `max_examples` bounds how many duplicated values are located.
CheckReport check_streams(std::span<const IdStream> streams, std::size_t max_examples = 5);

// Sorts in place; exposed for tests and for the chaos analyser.
void radix_sort(std::vector<std::uint64_t>& keys);
void radix_sort(std::vector<Id>& keys);

}  // namespace idbench
