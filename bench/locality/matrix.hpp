// matrix.hpp — the default locality matrix (`idbench locality --matrix`, `./run.sh locality`).
//
//   * the InnoDB model, `rows` rows, at every row size of `row_sizes` (payload bytes beside
//     the key: key-only and the validated realistic sizes, plus the user's own, see
//     validate.hpp kValidationPayloads): every registry variant whose description has
//     `defaults.locality` × {1, 8} writers at 50 IDs per ms (round-robin), then the
//     sequential and uniform random BIGINT baselines. A variant whose description also has
//     `defaults.locality_live_pace` runs at a live table's pace instead: kLivePaceRatePerMs
//     with Poisson arrivals (key_stream.hpp "Rate"), so its streams span many of UUIDv1's
//     429.5 s time_low wraps as a real table's do;
//   * the model-vs-real-engine cross-check (validate.hpp) at `validate_rows` rows and the
//     row sizes `validate_payloads` when mariadbd is installed — it also runs SQLite and, if
//     installed, PostgreSQL. By default key-only and 250 B; `--full` takes all four sizes.
//
// The document names the row size the report's decision table describes
// ("decision_payload_bytes") and the row sizes measured ("row_sizes").
//
// The JSON (run_json.hpp) is rewritten through plumbing::OutputFile (temp + rename) after
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
#include "bench/locality/validate.hpp"

namespace idbench::locality {

// The row size the decision table describes unless the user gives theirs: a typical OLTP row
// (orders, users, sessions), not key-only — no real table is key-only, and the verdicts flip
// with the row.
inline constexpr int kDecisionPayloadBytes = 250;
// The cross-check's row sizes unless `full`: key-only and the decision's typical row.
inline const std::vector<int> kMatrixValidatePayloads = {0, 250};

struct MatrixOptions {
  std::uint64_t rows = 1'000'000;
  std::vector<int> row_sizes = kValidationPayloads;
  int decision_payload_bytes = kDecisionPayloadBytes;  // added to row_sizes when not there
  std::uint64_t validate_rows = 300'000;
  std::vector<int> validate_payloads = kMatrixValidatePayloads;
  bool validate = true;  // the cross-check, when mariadbd is installed
  std::string out;       // the JSON file; required
  std::ostream* progress = nullptr;
};

// The matrix's rate (IDs per simulated ms, all writers): 50 per ms, a busy service, so 8
// writers' IDs meet within a ms.
inline constexpr double kMatrixRatePerMs = 50;
// A live table's pace for `defaults.locality_live_pace`: 10 IDs per second, so 1,000,000 rows
// span 28 hours of generator time (233 time_low wraps of UUIDv1) and --quick's 100,000 span 2.8.
inline constexpr double kLivePaceRatePerMs = 0.01;

// --quick: the same streams, smaller.
inline constexpr std::uint64_t kQuickRows = 100'000;
inline constexpr std::uint64_t kQuickValidateRows = 30'000;

// The model runs, in order: for each row size (ascending), the registry's order, 1 then 8
// writers, then the baselines.
std::vector<RunSpec> plan_matrix(std::uint64_t rows, const std::vector<int>& row_sizes = {0});

// The plan's runs grouped by stream (indices into `runs`), each group in the plan's order: the
// matrix builds a stream once and inserts it at every row size, so the row size is all that
// differs between a group's runs. Building is most of a run for a generator that reads its own
// clock (libuuid's v1 takes a file lock per ID: seconds per million).
std::vector<std::vector<std::size_t>> runs_by_stream(const std::vector<RunSpec>& runs);

// The row sizes a matrix measures: `options.row_sizes` and the decision's, sorted, unique.
std::vector<int> matrix_row_sizes(const MatrixOptions& options);

int run_matrix(const MatrixOptions& options);

}  // namespace idbench::locality
