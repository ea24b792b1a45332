// floors.cpp — ns per ID, the cost above a floor, and the floors' ledgers (floors.hpp).
#include "bench/floors.hpp"

#include <algorithm>

namespace idbench::bench {

std::optional<double> ns_per_id(int threads, double ids_per_s_wall) {
  if (threads < 1 || !(ids_per_s_wall > 0)) return std::nullopt;
  return static_cast<double>(threads) * 1e9 / ids_per_s_wall;
}

std::optional<double> above_floor(std::optional<double> ns_per_id,
                                  std::optional<double> floor_ns) {
  if (!ns_per_id || !floor_ns) return std::nullopt;
  return *ns_per_id - *floor_ns;
}

void FloorLedger::record(std::uint64_t iterations, double ns) {
  if (iterations < iterations_) return;  // a probe run, shorter than the one reported
  if (iterations > iterations_) {
    iterations_ = iterations;  // earlier runs were probes
    reported_.clear();
  }
  reported_.push_back(ns);
}

std::optional<double> FloorLedger::median() const {
  if (reported_.empty()) return std::nullopt;
  std::vector<double> v = reported_;
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  if (v.size() % 2 == 1) return v[mid];
  const double upper = v[mid];
  const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lower + upper) / 2;
}

}  // namespace idbench::bench
