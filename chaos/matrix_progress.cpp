// matrix_progress.cpp — the chaos matrix's progress lines (see matrix_progress.hpp).
#include "chaos/matrix_progress.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string>

namespace idbench::chaos {
namespace {

std::string minutes(double seconds) {
  const int s = static_cast<int>(seconds + 0.5);
  return s >= 60 ? fmt::format("{}m{:02}s", s / 60, s % 60) : fmt::format("{}s", s);
}

}  // namespace

void print_plan(const MatrixPlan& plan, std::FILE* progress) {
  if (progress == nullptr) return;
  const bool persist = std::any_of(plan.cells.begin(), plan.cells.end(),
                                   [](const MatrixCell& c) { return c.persist; });
  fmt::print(
      progress,
      "chaos matrix: {} cells ({} scenarios × {} variants × {} policies{}{}), {} nodes "
      "× {} threads at {:.0f} IDs/s per node; ~{} of scenario time\n",
      plan.cells.size(), plan.scenarios.size(), plan.variants.size(), plan.policies.size(),
      persist ? ", restart also with --persist" : "",
      plan.config.programs.empty() ? "" : fmt::format(", {} programs", plan.config.programs.size()),
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
  const double left_s = left_ms / 1000.0 + overhead_s / static_cast<double>(i + 1) *
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
