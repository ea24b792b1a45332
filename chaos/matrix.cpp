// matrix.cpp — planning and running the chaos matrix (see matrix.hpp); rendering is in
// matrix_report.cpp.
#include "chaos/matrix.hpp"

#include <fmt/format.h>

#include <optional>

#include "chaos/driver.hpp"
#include "chaos/matrix_report.hpp"
#include "chaos/process.hpp"
#include "chaos/raw_time.hpp"
#include "chaos/scenario.hpp"
#include "generators/errors.hpp"
#include "generators/policy.hpp"
#include "generators/registry.hpp"
#include "plumbing/temp_dir.hpp"

namespace idbench::chaos {
namespace {

std::vector<const Scenario*> chosen_scenarios(const std::vector<std::string>& names) {
  std::vector<const Scenario*> out;
  if (names.empty()) {
    for (const auto& s : scenarios()) out.push_back(&s);
    return out;
  }
  for (const auto& name : names) {
    const Scenario* s = find_scenario(name);
    if (s == nullptr) throw Error(fmt::format("unknown scenario '{}'", name));
    out.push_back(s);
  }
  return out;
}

RunConfig run_config(const MatrixPlan& plan, const MatrixCell& c) {
  RunConfig rc;
  rc.scenario = c.scenario;
  rc.variant = c.variant;
  rc.policy = c.policy;
  rc.nodes = plan.config.nodes;
  rc.threads = plan.config.threads;
  rc.rate = plan.config.rate;
  rc.time_scale = plan.time_scale;
  rc.node_binary = plan.config.node_binary;
  return rc;
}

// One cell, run and rendered; never throws but Interrupted.
CellOutcome run_cell(const MatrixPlan& plan, const MatrixCell& c) {
  RunConfig rc = run_config(plan, c);
  std::optional<plumbing::TempDir> marks;  // removed with the cell, whatever happens
  if (c.persist) {
    marks.emplace("idbench-chaos-mark");
    rc.persist_dir = marks->path();
  }
  try {
    const RunResult r = run_chaos(rc, nullptr);
    return cell_outcome(r);
  } catch (const NotApplicable& e) {
    return cell_not_run(c, plan.config.nodes, "skipped", e.what());
  } catch (const Interrupted&) {
    throw;
  } catch (const std::exception& e) {
    return cell_not_run(c, plan.config.nodes, "error", e.what());
  }
}

}  // namespace

std::int64_t MatrixPlan::planned_ms() const {
  std::int64_t ms = 0;
  for (const auto& c : cells) ms += c.duration_ms;
  return ms;
}

std::vector<std::string> default_matrix_variants(bool quick) {
  std::vector<std::string> out;
  for (const Variant& v : variants()) {
    if (quick ? v.defaults.chaos_quick : v.defaults.chaos) out.emplace_back(v.name);
  }
  return out;
}

MatrixPlan plan_matrix(const MatrixConfig& cfg) {
  if (cfg.out_path.empty()) throw Error("the matrix needs --out FILE");
  MatrixPlan plan;
  plan.config = cfg;
  plan.time_scale = cfg.time_scale > 0 ? cfg.time_scale : (cfg.quick ? 0.5 : 1.0);
  check_rate_and_scale(cfg.rate, plan.time_scale);
  plan.variants = cfg.variants.empty() ? default_matrix_variants(cfg.quick) : cfg.variants;
  for (const auto& v : plan.variants) {
    if (find_variant(v) == nullptr) throw Error(fmt::format("unknown variant '{}'", v));
  }
  plan.policies = cfg.policies;
  if (plan.policies.empty()) {
    for (const auto& p : policy_catalog()) plan.policies.emplace_back(p.name);
  }
  for (const auto& p : plan.policies) Policy::parse(p);  // throws with the list of policies
  for (const Scenario* s : chosen_scenarios(cfg.scenarios)) {
    plan.scenarios.emplace_back(s->name);
    const std::int64_t ms = scaled(*s, plan.time_scale).duration_ms;
    for (bool persist : {false, true}) {
      if (persist && !(s->restarts && cfg.persist_restart)) continue;
      for (const auto& v : plan.variants) {
        for (const auto& p : plan.policies) {
          plan.cells.push_back({std::string(s->name), v, p, persist, ms});
        }
      }
    }
  }
  return plan;
}

int run_matrix(const MatrixPlan& plan, std::FILE* progress) {
  MatrixDocument doc(plan);
  doc.write();  // a whole file, `complete: false`, before the first cell: --out fails early
  print_plan(plan, progress);
  InterruptGuard guard;  // between cells too: a signal stops the matrix with the file whole
  const std::int64_t began = mono_ns();
  double overhead_s = 0;  // measured wall time beyond the scenarios' own durations
  for (std::size_t i = 0; i < plan.cells.size(); ++i) {
    throw_if_interrupted();
    const MatrixCell& c = plan.cells[i];
    print_cell_start(plan, i, progress);
    const std::int64_t cell_began = mono_ns();
    CellOutcome outcome = run_cell(plan, c);
    print_cell_result(outcome, progress);
    overhead_s += static_cast<double>(mono_ns() - cell_began) / 1e9 - c.duration_ms / 1000.0;
    doc.add(std::move(outcome));
    doc.write();
    print_time_left(plan, i, static_cast<double>(mono_ns() - began) / 1e9, overhead_s, progress);
  }
  doc.finish(static_cast<double>(mono_ns() - began) / 1e9);
  doc.write();
  print_summary(doc, progress);
  return doc.failures() == 0 ? 0 : 1;
}

}  // namespace idbench::chaos
