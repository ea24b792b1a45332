// checker.hpp — the duplicate finder and order checker every idbench tool trusts.
//
// `check_files` streams files of IDs (one stream each) and `check_streams` takes streams in
// memory; both report
//   * duplicates: IDs equal to an ID seen before, across all streams, counted as extra copies
//     (a value seen 3 times counts 2), the number of distinct duplicated values, and the
//     smallest few values with every place each of them occurs (up to 100 places);
//   * order violations per stream: positions where an ID is smaller than the one before it
//     (an equal neighbour is a duplicate, not an order violation), found while streaming.
//
// How: see duplicate_finder.hpp — radix sort in memory, or hash partitions on disk above the
// memory budget, so a file larger than memory is checked in bounded memory.
//
// Thread safety: pure functions (check_files uses a private temp dir when it spills).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "check/duplicate_finder.hpp"
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
  // IDs that repeat an earlier one (extra copies): total minus distinct.
  std::size_t duplicates = 0;
  // Distinct values that occur more than once.
  std::size_t duplicated_values = 0;
  IdWidth width = IdWidth::bits64;  // of the non-empty streams; an empty stream has none
  bool spilled = false;             // the IDs exceeded the memory budget and went to disk
  std::vector<DuplicateExample> examples;
  std::vector<StreamReport> streams;

  std::size_t order_violations() const;
};

// `max_examples` bounds how many duplicated values are located. Held in memory.
CheckReport check_streams(std::span<const IdStream> streams, std::size_t max_examples = 5);

struct CheckOptions {
  FileFormat format = FileFormat::text;
  std::optional<IdWidth> width;  // nullopt: text from each file's first line; binary 64
  std::uint64_t memory_budget = 0;  // bytes; 0 means default_memory_budget()
  std::size_t max_examples = 5;
};

// Streams every file once. Throws IdFileError on bad input (naming file and line), and when
// two non-empty files hold IDs of different widths.
CheckReport check_files(const std::vector<std::string>& paths, const CheckOptions& options);

// Sorts in place; exposed for tests and for the chaos analyser.
void radix_sort(std::vector<std::uint64_t>& keys);
void radix_sort(std::vector<Id>& keys);

}  // namespace idbench
