#include "property/duplicates.hpp"

#include <algorithm>

namespace idbench::property {

std::size_t DuplicateFinder::add(std::span<const Id> batch) {
  std::vector<Id> sorted(batch.begin(), batch.end());
  std::sort(sorted.begin(), sorted.end());
  std::size_t found = 0;
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    const bool repeat = (i > 0 && sorted[i] == sorted[i - 1]) ||
                        std::binary_search(seen_.begin(), seen_.end(), sorted[i]);
    if (!repeat) continue;
    ++found;
    if (examples_.size() < kMaxExamples) examples_.push_back(sorted[i]);
  }
  // Merging two sorted runs keeps the whole history sorted in linear time, so a long property
  // pays O(seen) per batch instead of re-sorting everything it was ever given.
  const auto middle = static_cast<std::ptrdiff_t>(seen_.size());
  seen_.insert(seen_.end(), sorted.begin(), sorted.end());
  std::inplace_merge(seen_.begin(), seen_.begin() + middle, seen_.end());
  duplicates_ += found;
  return found;
}

std::string DuplicateFinder::describe(IdWidth width) const {
  std::string text;
  for (const Id& id : examples_) {
    if (!text.empty()) text += ", ";
    text += to_text(id, width);
  }
  return text.empty() ? "none" : text;
}

std::size_t count_duplicates(std::span<const Id> ids) { return DuplicateFinder{}.add(ids); }

}  // namespace idbench::property
