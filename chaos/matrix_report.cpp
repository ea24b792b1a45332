// matrix_report.cpp — chaos.json and the matrix's progress lines (see matrix_report.hpp).
#include "chaos/matrix_report.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "chaos/report.hpp"
#include "plumbing/atomic_file.hpp"

namespace idbench::chaos {
namespace {

using json = nlohmann::ordered_json;

std::string minutes(double seconds) {
  const int s = static_cast<int>(seconds + 0.5);
  return s >= 60 ? fmt::format("{}m{:02}s", s / 60, s % 60) : fmt::format("{}s", s);
}

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
  doc_["config"] = {{"quick", cfg.quick},         {"time_scale", plan.time_scale},
                    {"nodes", cfg.nodes},         {"threads", cfg.threads},
                    {"rate_per_node", cfg.rate},  {"variants", plan.variants},
                    {"policies", plan.policies},  {"cells", plan.cells.size()}};
  doc_["config"].update(faketime_json());
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

void print_plan(const MatrixPlan& plan, std::FILE* progress) {
  if (progress == nullptr) return;
  const bool persist = std::any_of(plan.cells.begin(), plan.cells.end(),
                                   [](const MatrixCell& c) { return c.persist; });
  fmt::print(progress,
             "chaos matrix: {} cells ({} scenarios × {} variants × {} policies{}), {} nodes × "
             "{} threads at {:.0f} IDs/s per node; ~{} of scenario time\n",
             plan.cells.size(), plan.scenarios.size(), plan.variants.size(),
             plan.policies.size(), persist ? ", restart also with --persist" : "",
             plan.config.nodes, plan.config.threads, plan.config.rate,
             minutes(plan.planned_ms() / 1000.0));
}

void print_cell_start(const MatrixPlan& plan, std::size_t i, std::FILE* progress) {
  if (progress == nullptr) return;
  const MatrixCell& c = plan.cells[i];
  const std::string label =
      fmt::format("{}{} · {}{} · {}", c.scenario, c.persist ? " (persist)" : "", c.variant,
                  c.layout_label.empty() ? "" : " " + c.layout_label, c.policy);
  fmt::print(progress, "[{:>3}/{}] {:<52} {:>4.1f} s … ", i + 1, plan.cells.size(), label,
             c.duration_ms / 1000.0);
  std::fflush(progress);
}

void print_cell_result(const CellOutcome& outcome, std::FILE* progress) {
  if (progress != nullptr) fmt::print(progress, "{}", outcome.line);
}

void print_time_left(const MatrixPlan& plan, std::size_t i, double elapsed_s, double overhead_s,
                     std::FILE* progress) {
  if (progress == nullptr) return;
  std::int64_t left_ms = 0;
  for (std::size_t j = i + 1; j < plan.cells.size(); ++j) left_ms += plan.cells[j].duration_ms;
  const double left_s =
      left_ms / 1000.0 + overhead_s / static_cast<double>(i + 1) *
                             static_cast<double>(plan.cells.size() - i - 1);
  fmt::print(progress, "  | {} elapsed, ~{} left\n", minutes(elapsed_s), minutes(left_s));
  std::fflush(progress);
}

void print_summary(const MatrixDocument& doc, std::FILE* progress) {
  if (progress == nullptr) return;
  fmt::print(progress, "chaos matrix: {} cells, {} IDs, {} broken or failed, in {}; wrote {}\n",
             doc.plan().cells.size(), doc.ids(), doc.failures(), minutes(doc.wall_seconds()),
             doc.plan().config.out_path);
}

}  // namespace idbench::chaos
