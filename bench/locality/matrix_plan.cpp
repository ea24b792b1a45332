// matrix_plan.cpp — which runs the default locality matrix holds (see matrix.hpp).
#include "bench/locality/matrix.hpp"
#include "generators/registry.hpp"

namespace idbench::locality {

std::vector<RunSpec> plan_matrix(std::uint64_t rows) {
  std::vector<RunSpec> runs;
  RunSpec base;
  base.stream.rows = rows;
  for (const auto& v : variants()) {
    if (!v.defaults.locality) continue;
    for (const std::uint64_t writers : {1, 8}) {
      RunSpec r = base;
      r.stream.variant = std::string(v.name);
      r.stream.writers = writers;
      r.stream.rate = 50;
      runs.push_back(r);
    }
  }
  for (const Synthetic s : {Synthetic::sequential, Synthetic::random}) {
    RunSpec r = base;
    r.stream.synthetic = s;
    runs.push_back(r);
  }
  return runs;
}

}  // namespace idbench::locality
