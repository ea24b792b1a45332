// matrix_plan.cpp — which runs the default locality matrix holds (see matrix.hpp).
#include <algorithm>

#include "bench/locality/matrix.hpp"
#include "generators/registry.hpp"

namespace idbench::locality {

std::vector<RunSpec> plan_matrix(std::uint64_t rows, const std::vector<int>& row_sizes) {
  std::vector<RunSpec> runs;
  for (const int payload : row_sizes) {
    RunSpec base;
    base.stream.rows = rows;
    base.payload_bytes = payload;
    for (const auto& v : variants()) {
      if (!v.defaults.locality) continue;
      for (const std::uint64_t writers : {1, 8}) {
        RunSpec r = base;
        r.stream.variant = std::string(v.name);
        r.stream.writers = writers;
        r.stream.rate = v.defaults.locality_live_pace ? kLivePaceRatePerMs : kMatrixRatePerMs;
        if (v.defaults.locality_live_pace) r.stream.arrival = Arrival::poisson;
        runs.push_back(r);
      }
    }
    for (const Synthetic s : {Synthetic::sequential, Synthetic::random}) {
      RunSpec r = base;
      r.stream.synthetic = s;
      runs.push_back(r);
    }
  }
  return runs;
}

std::vector<int> matrix_row_sizes(const MatrixOptions& options) {
  std::vector<int> sizes = options.row_sizes;
  sizes.push_back(options.decision_payload_bytes);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

}  // namespace idbench::locality
