// matrix_json.hpp — the chaos matrix's JSON document (chaos.json), one cell at a time, and each
// cell's one progress line beside its JSON. The matrix runner (matrix.hpp) measures; this file
// only renders. The progress lines around the cells are matrix_progress.hpp's.
//
//   MatrixDocument doc(plan);    // context, config, `complete: false`, no cells yet
//   doc.add(cell_outcome(run));  // after each cell...
//   doc.write();                 // ...the whole file again, via plumbing::OutputFile
//   doc.finish(wall_seconds); doc.write();
//
// Thread safety: thread-compatible values.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "chaos/driver.hpp"
#include "chaos/matrix.hpp"

namespace idbench::chaos {

// One cell as it went: its JSON, whether it failed, and one line for the progress.
struct CellOutcome {
  nlohmann::ordered_json json;
  bool failed = false;  // a promise broken, no evidence, or could not run
  std::size_t ids = 0;
  std::string line;
};

CellOutcome cell_outcome(const RunResult& r);
// A cell that did not run: `key` is "skipped" (not applicable, not a failure) or "error".
CellOutcome cell_not_run(const MatrixCell& c, int nodes, const std::string& key,
                         const std::string& why);

class MatrixDocument {
 public:
  explicit MatrixDocument(const MatrixPlan& plan);
  void add(CellOutcome outcome);
  void finish(double wall_seconds);
  // Replaces the --out file with the document as it is now (temp file + rename, or written
  // through to a FIFO or device). Throws plumbing::OutputError; the old file stays whole.
  void write() const;

  int failures() const { return failures_; }
  std::size_t ids() const { return ids_; }
  std::size_t cells_done() const { return done_; }
  const MatrixPlan& plan() const { return plan_; }
  double wall_seconds() const { return wall_seconds_; }

 private:
  const MatrixPlan& plan_;
  nlohmann::ordered_json doc_;
  int failures_ = 0;
  std::size_t ids_ = 0;
  std::size_t done_ = 0;
  double wall_seconds_ = 0;
};

}  // namespace idbench::chaos
