// floors.hpp — the harness's floors as the variants see them: what one ID costs a thread, each
// floor's cost measured so far in this process, and a run's cost above it. Pure: no timing, no
// output, no Google Benchmark.
//
//   ns per ID    CPU-thread time per ID: threads × wall span ÷ IDs, i.e.
//                threads × 1e9 ÷ ids_per_s_wall. A floor's ns per ID is what the harness (the
//                loop, the virtual call, the Id) or the harness plus one clock read costs; a
//                variant's ns per ID above it is the design's own.
//   FloorLedger  one floor at one thread count: the ns per ID of every run of it. Google
//                Benchmark runs a benchmark at growing iteration counts until one run lasts
//                long enough, reports that run, and reuses its count for the repetitions that
//                follow; so the runs at the largest iteration count seen are exactly the
//                reported ones, and `median` is the median over the floor's repetitions so far.
//
// Thread safety: FloorLedger is thread-compatible (its owner serialises access); the functions
// are pure.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace idbench::bench {

// threads × 1e9 ÷ ids_per_s_wall; nullopt when the rate is not positive or threads < 1.
std::optional<double> ns_per_id(int threads, double ids_per_s_wall);

// `ns_per_id` − `floor_ns`: the cost above the floor (negative when the run beat the floor,
// which noise allows and the report shows as it is); nullopt when either is unknown.
std::optional<double> above_floor(std::optional<double> ns_per_id, std::optional<double> floor_ns);

class FloorLedger {
 public:
  // One run of the floor: its per-thread iteration count and its ns per ID.
  void record(std::uint64_t iterations, double ns_per_id);
  // The median ns per ID over the runs at the largest iteration count recorded; nullopt
  // before any run.
  std::optional<double> median() const;

 private:
  std::uint64_t iterations_ = 0;
  std::vector<double> reported_;
};

}  // namespace idbench::bench
