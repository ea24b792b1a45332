// duplicates.hpp — the one duplicate finder every property and stress test in property/ uses.
//
// A finder remembers every ID it was given, sorted, and reports how many IDs of each new batch
// were seen before (in an earlier batch or earlier in the same batch). Sorting and comparing
// neighbours is the method `idbench check` uses on files; here it runs in memory so a property
// can ask after every command, at O(batch log batch + seen) per batch.
//
//   DuplicateFinder finder;
//   finder.add(first_batch);            // 0
//   finder.add(second_batch);           // how many of these were issued before
//   finder.examples();                  // the first few duplicated values, for a message
//
// The finder is itself under test (duplicates_test.cpp): a property that never sees a
// duplicate proves nothing unless the same code is shown to report the planted ones.
//
// Thread safety: thread-compatible, not thread-safe.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "generators/id.hpp"

namespace idbench::property {

class DuplicateFinder {
 public:
  // How many IDs of `batch` equal an ID seen before; a value issued k times counts k - 1.
  std::size_t add(std::span<const Id> batch);

  std::size_t seen() const { return seen_.size(); }
  std::size_t duplicates() const { return duplicates_; }
  // Up to kMaxExamples duplicated values, in the order they were found.
  const std::vector<Id>& examples() const { return examples_; }
  // The examples as text, for a failure message.
  std::string describe(IdWidth width) const;

  static constexpr std::size_t kMaxExamples = 5;

 private:
  std::vector<Id> seen_;  // sorted, duplicates kept
  std::vector<Id> examples_;
  std::size_t duplicates_ = 0;
};

// One batch on its own: how many IDs repeat an earlier one.
std::size_t count_duplicates(std::span<const Id> ids);

}  // namespace idbench::property
