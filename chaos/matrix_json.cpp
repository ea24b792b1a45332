// matrix_json.cpp — chaos.json, cell by cell (see matrix_json.hpp).
#include "chaos/matrix_json.hpp"

#include <fmt/format.h>

#include "chaos/run_json.hpp"
#include "plumbing/atomic_file.hpp"

namespace idbench::chaos {
namespace {

using json = nlohmann::ordered_json;

const char* word_for(const RunResult& r) {
  switch (r.verdict.outcome) {
    case fault::Outcome::kept:
      return "kept";
    case fault::Outcome::caught:
      return "caught";
    case fault::Outcome::no_evidence:
      return "NO EVIDENCE";
    case fault::Outcome::fault_not_applied:
    case fault::Outcome::not_verified:
      return "FAULT NOT APPLIED";
    default:
      return "BROKEN";
  }
}

}  // namespace

CellOutcome cell_outcome(const RunResult& r) {
  CellOutcome out;
  out.json = to_json(r, /*with_timeline=*/true);
  out.failed = !r.verdict.passed();
  out.ids = r.analysis.ids;
  const Analysis& a = r.analysis;
  out.line = fmt::format(
      "{:>7} IDs  dup {:<6} ref {:<7} avail {:>5.1f}%  stall {:>6.0f} ms  k-sort {:>6.0f} ms  {}",
      a.ids, a.duplicates, a.refusals, 100 * a.availability, a.max_stall_ms, a.ksort_bound_ms,
      word_for(r));
  return out;
}

CellOutcome cell_not_run(const MatrixCell& c, int nodes, const std::string& key,
                         const std::string& why) {
  CellOutcome out;
  out.json = {{"scenario", c.scenario}, {"variant", c.variant}, {"policy", c.policy},
              {"persist", c.persist},   {"nodes", nodes},       {key, why},
              {"promise_kept", nullptr}};
  if (!c.layout.empty()) out.json["layout"] = c.layout;
  out.failed = key != "skipped";
  out.line = fmt::format("{}: {}", key == "skipped" ? "skipped" : "ERROR", why);
  return out;
}

MatrixDocument::MatrixDocument(const MatrixPlan& plan) : plan_(plan) {
  const MatrixConfig& cfg = plan.config;
  doc_["context"] = context_json();
  doc_["config"] = {{"quick", cfg.quick},        {"time_scale", plan.time_scale},
                    {"nodes", cfg.nodes},        {"threads", cfg.threads},
                    {"rate_per_node", cfg.rate}, {"variants", plan.variants},
                    {"policies", plan.policies}, {"cells", plan.cells.size()}};
  json programs = json::array();
  for (const MatrixProgram& p : cfg.programs) programs.push_back(p.name);
  doc_["config"]["programs"] = programs;
  doc_["config"].update(clocks_json(cfg.clock_injector));
  doc_["complete"] = false;
  doc_["cells"] = json::array();
}

void MatrixDocument::add(CellOutcome outcome) {
  if (outcome.failed) ++failures_;
  ids_ += outcome.ids;
  doc_["cells"].push_back(std::move(outcome.json));
  doc_["cells_done"] = ++done_;
}

void MatrixDocument::finish(double wall_seconds) {
  wall_seconds_ = wall_seconds;
  doc_["complete"] = true;
  doc_["summary"] = {{"cells", plan_.cells.size()},
                     {"promises_broken_or_failed", failures_},
                     {"ids", ids_},
                     {"wall_seconds", wall_seconds}};
}

void MatrixDocument::write() const {
  plumbing::write_file_atomically(plan_.config.out_path, doc_.dump(1) + "\n");
}

}  // namespace idbench::chaos
