// matrix.hpp — the default locality matrix (`idbench locality --matrix`, `./run.sh locality`).
//
//   * the InnoDB model, `rows` rows, for every registry variant whose description has
//     `defaults.locality` × {1, 8} writers at 50 IDs per ms (round-robin), then the sequential
//     and uniform random BIGINT baselines;
//   * the model-vs-real-engine cross-check (validate.hpp) at `validate_rows` rows when
//     mariadbd is installed — it also runs SQLite and, if installed, PostgreSQL.
//
// The JSON (results_json.hpp) is rewritten through plumbing::OutputFile (temp + rename) after
// every run, so an interrupted matrix keeps what it measured ("complete": false, and no
// "validation" key until the cross-check is done or skipped); a target that is not a regular
// file (/dev/stdout, a FIFO) is written through once, at the end. Progress lines go to
// `progress`: what runs, i/N, elapsed and an estimate of the time left.
//
// Exit status (returned): 0 written — a validation disagreement is recorded in the JSON and
// reported on `progress`, not fatal (the report shows it). A model run that fails throws
// (idbench::Error: exit 2; a generator's refusal: exit 3), leaving the runs before it written.
//
// Thread safety: thread-compatible.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "bench/locality/single_run.hpp"

namespace idbench::locality {

struct MatrixOptions {
  std::uint64_t rows = 1'000'000;
  std::uint64_t validate_rows = 300'000;
  bool validate = true;  // the cross-check, when mariadbd is installed
  std::string out;       // the JSON file; required
  std::ostream* progress = nullptr;
};

// --quick: the same streams, smaller.
inline constexpr std::uint64_t kQuickRows = 100'000;
inline constexpr std::uint64_t kQuickValidateRows = 30'000;

// The model runs, in order (the registry's order, 1 then 8 writers, then the baselines).
std::vector<RunSpec> plan_matrix(std::uint64_t rows);

int run_matrix(const MatrixOptions& options);

}  // namespace idbench::locality
