// checker.cpp — streams of IDs in, a report of duplicates and order violations out.
#include "check/checker.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <optional>

#include "check/radix.hpp"

namespace idbench {
namespace {

int bits_of(IdWidth w) { return w == IdWidth::bits64 ? 64 : 128; }

// Feeds streams, one after another, to one DuplicateFinder, and checks order as they pass.
class ReportBuilder {
 public:
  explicit ReportBuilder(std::uint64_t budget) : budget_(budget) {}

  void begin_stream(std::string name) {
    starts_.push_back(total_);
    report_.streams.push_back({std::move(name), 0, 0, 0});
    has_prev_ = false;
  }

  // Called before any add() of a stream whose width is known: creates the finder, or checks
  // that this stream's width agrees with the first non-empty stream's.
  void set_width(IdWidth width, std::uint64_t expected_ids) {
    if (!finder_) {
      finder_.emplace(width, budget_);
      report_.width = width;
      first_name_ = report_.streams.back().name;
    } else if (width != report_.width) {
      throw IdFileError(fmt::format("{}: holds {}-bit IDs but {} holds {}-bit IDs",
                                    report_.streams.back().name, bits_of(width), first_name_,
                                    bits_of(report_.width)));
    }
    if (expected_ids > 0) finder_->expect(expected_ids);
  }

  void add(const Id& id) {
    StreamReport& s = report_.streams.back();
    if (has_prev_ && id < prev_ && s.order_violations++ == 0) s.first_violation = s.count;
    prev_ = id;
    has_prev_ = true;
    ++s.count;
    ++total_;
    finder_->add(id);
  }

  CheckReport finish(std::size_t max_examples) {
    report_.total = total_;
    if (!finder_) return std::move(report_);
    DuplicateSummary d = finder_->finish(max_examples);
    report_.duplicates = d.duplicates;
    report_.duplicated_values = d.duplicated_values;
    report_.spilled = d.spilled;
    for (auto& e : d.examples) {
      DuplicateExample ex{e.id, e.occurrences, {}};
      for (std::uint64_t pos : e.positions) ex.places.push_back(place_of(pos));
      report_.examples.push_back(std::move(ex));
    }
    return std::move(report_);
  }

 private:
  DuplicatePlace place_of(std::uint64_t pos) const {
    // The last stream that starts at or before pos (empty streams start where the next does).
    const auto it = std::upper_bound(starts_.begin(), starts_.end(), pos) - 1;
    const auto stream = static_cast<std::size_t>(it - starts_.begin());
    return {stream, static_cast<std::size_t>(pos - *it)};
  }

  std::uint64_t budget_;
  std::optional<DuplicateFinder> finder_;
  std::string first_name_;
  std::vector<std::uint64_t> starts_;
  std::uint64_t total_ = 0;
  Id prev_;
  bool has_prev_ = false;
  CheckReport report_;
};

}  // namespace

void radix_sort(std::vector<std::uint64_t>& keys) {
  std::vector<std::uint64_t> scratch;
  radix::radix_sort_by(keys, scratch, [](std::uint64_t k) { return k; });
}

void radix_sort(std::vector<Id>& keys) {
  std::vector<Id> scratch;
  radix::radix_sort_by(keys, scratch, [](const Id& k) -> const Id& { return k; });
}

std::size_t CheckReport::order_violations() const {
  std::size_t n = 0;
  for (const auto& s : streams) n += s.order_violations;
  return n;
}

CheckReport check_streams(std::span<const IdStream> streams, std::size_t max_examples) {
  ReportBuilder builder(std::numeric_limits<std::uint64_t>::max());
  for (const IdStream& s : streams) {
    builder.begin_stream(s.name);
    if (s.size() == 0) continue;
    builder.set_width(s.width, s.size());
    for (std::size_t i = 0; i < s.size(); ++i) builder.add(s.at(i));
  }
  return builder.finish(max_examples);
}

CheckReport check_files(const std::vector<std::string>& paths, const CheckOptions& options) {
  ReportBuilder builder(options.memory_budget > 0 ? options.memory_budget
                                                  : default_memory_budget());
  std::vector<Id> batch;
  for (const std::string& path : paths) {
    IdReader reader(path, options.format, options.width);
    builder.begin_stream(path);
    bool first = true;
    while (reader.next(batch, 1 << 16)) {
      if (first) {
        const bool exact = options.format == FileFormat::binary;
        const std::uint64_t record = *reader.width() == IdWidth::bits64 ? 8 : 16;
        builder.set_width(*reader.width(), exact ? reader.size_bytes() / record : 0);
        first = false;
      }
      for (const Id& id : batch) builder.add(id);
    }
  }
  return builder.finish(options.max_examples);
}

}  // namespace idbench
