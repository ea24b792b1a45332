// clock_sequence_store.cpp — the clock-sequence state files, parsed strictly, stored durably.
#include "chaos/clock_sequence_store.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>

#include "chaos/high_water_mark.hpp"
#include "plumbing/atomic_file.hpp"

namespace idbench::chaos {
namespace {

// Four int64 numbers, three spaces and a newline: 4 × 20 + 4 bytes.
constexpr std::size_t kMaxStateBytes = 84;

// One canonical decimal: no '+', no leading zero, "-1" the only negative value allowed.
bool parse_number(std::string_view text, std::int64_t& out) {
  if (text.empty() || text.front() == '+') return false;
  const bool negative = text.front() == '-';
  const std::string_view digits = negative ? text.substr(1) : text;
  if (digits.empty() || (digits.size() > 1 && digits.front() == '0')) return false;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc{} && ptr == text.data() + text.size() && out >= -1;
}

}  // namespace

std::string clock_sequence_path(const std::string& persist_dir, std::uint64_t node_id) {
  return fmt::format("{}/node-{}.clockseq", persist_dir, node_id);
}

Generations parse_generations(std::string_view text, const std::string& path) {
  std::array<std::int64_t, 4> v{};
  std::string_view rest = text;
  bool ok = !rest.empty() && rest.back() == '\n';
  if (ok) rest.remove_suffix(1);
  for (std::size_t i = 0; ok && i < v.size(); ++i) {
    const std::size_t space = rest.find(' ');
    const bool last = i + 1 == v.size();
    if (last != (space == std::string_view::npos)) {
      ok = false;
      break;
    }
    ok = parse_number(rest.substr(0, space), v[i]);
    rest = last ? std::string_view{} : rest.substr(space + 1);
  }
  // A generation and the lap's first one are never negative; a floor above high is no state.
  ok = ok && v[0] >= 0 && v[1] >= 0 && v[2] <= v[3];
  if (!ok) {
    throw HighWaterMarkError(fmt::format(
        "clock-sequence state {}: corrupt: expected 'gen lap_first floor high' and a newline, "
        "found {}; refusing to start rather than guess",
        path, shown(text)));
  }
  return {static_cast<std::uint64_t>(v[0]), static_cast<std::uint64_t>(v[1]), v[2], v[3]};
}

std::optional<Generations> ClockSequenceStore::load(std::uint64_t node) {
  const std::string path = clock_sequence_path(dir_, node);
  const std::optional<std::string> text = read_state_file(path, kMaxStateBytes);
  if (!text) return std::nullopt;
  return parse_generations(*text, path);
}

void ClockSequenceStore::store(std::uint64_t node, const Generations& g) {
  const std::string path = clock_sequence_path(dir_, node);
  std::lock_guard<std::mutex> lock(mu_);
  try {
    plumbing::write_file_atomically(
        path, fmt::format("{} {} {} {}\n", g.gen, g.lap_first, g.floor, g.high));
  } catch (const plumbing::OutputError& e) {
    throw HighWaterMarkError(fmt::format("clock-sequence state {}: {}", path, e.what()));
  }
  ++stores_;
}

int ClockSequenceStore::stores() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stores_;
}

}  // namespace idbench::chaos
