// matrix.cpp — planning and running the chaos matrix (see matrix.hpp); rendering is in
// matrix_json.cpp (chaos.json) and matrix_progress.cpp (the progress lines).
#include "chaos/matrix.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "chaos/driver.hpp"
#include "chaos/matrix_json.hpp"
#include "chaos/matrix_progress.hpp"
#include "chaos/process.hpp"
#include "chaos/scenario.hpp"
#include "fault/retry.hpp"
#include "fault/verdict.hpp"
#include "generators/errors.hpp"
#include "generators/policy.hpp"
#include "generators/registry.hpp"
#include "plumbing/raw_time.hpp"
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

// A program's cells never run shorter than full length: a program that waits out a step
// (flake-idgen refuses until its clock passes its last ID) shows it only in the whole window.
double program_scale(double time_scale) { return std::max(time_scale, 1.0); }

constexpr double kQuickScale = 0.25;
// A restart's regression must outlast the restarted node's start: at a quarter (0.25 s) a node
// with a persisted mark came back after its clock had caught up and tested nothing.
constexpr double kQuickRestartScale = 0.5;

// The scale of a built-in variant's cells of scenario `s`.
double cell_scale(const MatrixConfig& cfg, const Scenario& s) {
  if (cfg.time_scale > 0) return cfg.time_scale;
  if (!cfg.quick) return 1.0;
  return s.restarts ? kQuickRestartScale : kQuickScale;
}

RunConfig run_config(const MatrixPlan& plan, const MatrixCell& c) {
  RunConfig rc;
  rc.scenario = c.scenario;
  rc.variant = c.variant;
  rc.policy = c.policy;
  if (!c.layout.empty()) rc.layout = c.layout;
  rc.nodes = plan.config.nodes;
  rc.threads = plan.config.threads;
  rc.rate = plan.config.rate;
  rc.time_scale = c.time_scale;
  rc.node_binary = plan.config.node_binary;
  rc.clock_injector = plan.config.clock_injector;
  if (c.program) rc.exec = plan.config.programs.at(*c.program).exec;
  return rc;
}

CellOutcome run_cell_of(const MatrixPlan& plan, const MatrixCell& c);

// One cell, run and rendered, a program's named by its system and scheme; never throws but
// Interrupted.
CellOutcome run_cell(const MatrixPlan& plan, const MatrixCell& c) {
  // A built-in variant's cell without evidence (a node that issued nothing before a fault, a
  // restart that came back after its clock had caught up) says the machine was slow, not what
  // the variant does: it runs once more, and the first try's line is kept beside the second.
  const auto no_evidence = [&c](const CellOutcome& o) -> std::optional<std::string> {
    if (c.program || !o.json.contains("fault_verdict")) return std::nullopt;
    const nlohmann::json& v = o.json["fault_verdict"];
    if (v.value("verdict", "") != fault::name_of(fault::Outcome::no_evidence)) return std::nullopt;
    return v.value("evidence", "");
  };
  fault::Retried<CellOutcome> tried =
      fault::play_while_spoiled([&] { return run_cell_of(plan, c); }, no_evidence, 1);
  CellOutcome out = std::move(tried.result);
  if (!tried.set_aside.empty()) out.json["retried_after"] = tried.set_aside.front();
  if (c.program) {
    const MatrixProgram& p = plan.config.programs.at(*c.program);
    out.json["system"] = p.name;
    out.json["scheme"] = p.scheme;
    // What a program did is a finding about it, recorded in the cell (BROKEN, no evidence),
    // not a failure of the matrix, whose exit status answers for idbench's own variants.
    out.failed = false;
  }
  return out;
}

CellOutcome run_cell_of(const MatrixPlan& plan, const MatrixCell& c) {
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

namespace {

constexpr std::string_view kClockSequence = "clock-sequence";
constexpr const char* kItsOwn = "its own";  // a program's policy, as `chaos --exec` labels it

// How many times the scenario steps some clock back (a step, or a VM's resume, below 0).
int backward_steps(const Scenario& s) {
  int n = 0;
  for (const Event& e : s.events) {
    const bool moves = e.kind == EventKind::step || e.kind == EventKind::resume;
    if (moves && e.step_ms < 0) ++n;
  }
  return n;
}

// The variants of the clock-sequence cells: the given ones whose description keeps a clock
// sequence, or by default those whose description puts them in this matrix.
std::vector<const Variant*> clock_sequence_variants(const MatrixConfig& cfg) {
  std::vector<const Variant*> out;
  for (const Variant& v : variants()) {
    const bool keeps = v.defaults.clock_sequence;
    const bool chosen = cfg.variants.empty() ? (cfg.quick ? v.defaults.clock_sequence_quick : keeps)
                                             : keeps && std::ranges::find(cfg.variants, v.name) !=
                                                            cfg.variants.end();
    if (chosen) out.push_back(&v);
  }
  return out;
}

// The clock-sequence cells of one scenario (see matrix.hpp).
void add_clock_sequence_cells(const MatrixConfig& cfg, const Scenario& s, double scale,
                              std::vector<MatrixCell>& cells) {
  if (!s.steps_back) return;
  const int steps = backward_steps(s);
  if (cfg.quick && !s.restarts && steps < 2) return;
  const std::string scenario(s.name);
  const std::string policy(kClockSequence);
  const std::int64_t ms = scaled(s, scale).duration_ms;
  for (bool persist : {false, true}) {
    if (persist && (!cfg.persist_restart || (cfg.quick && !s.restarts))) continue;
    for (const Variant* v : clock_sequence_variants(cfg)) {
      const std::string name(v->name);
      // --persist is idbench's stable storage; a library with its own clock keeps its own.
      if (persist && v->own_clock) continue;
      if (!v->uses_layout) {
        cells.push_back({scenario, name, policy, "", "", persist, ms, std::nullopt, scale});
        continue;
      }
      cells.push_back(
          {scenario, name, policy, kGenLayout, "gen=2", persist, ms, std::nullopt, scale});
      if (steps > 1 && !persist) {
        cells.push_back(
            {scenario, name, policy, kGen1Layout, "gen=1", false, ms, std::nullopt, scale});
      }
    }
  }
}

}  // namespace

MatrixPlan plan_matrix(const MatrixConfig& cfg) {
  if (cfg.out_path.empty()) throw Error("the matrix needs --out FILE");
  MatrixPlan plan;
  plan.config = cfg;
  plan.time_scale = cfg.time_scale > 0 ? cfg.time_scale : (cfg.quick ? kQuickScale : 1.0);
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
  const bool clock_sequence =
      std::ranges::find(plan.policies, kClockSequence) != plan.policies.end();
  for (const Scenario* s : chosen_scenarios(cfg.scenarios)) {
    plan.scenarios.emplace_back(s->name);
    const double scale = cell_scale(cfg, *s);
    const std::int64_t ms = scaled(*s, scale).duration_ms;
    for (bool persist : {false, true}) {
      if (persist && !(s->restarts && cfg.persist_restart)) continue;
      for (const auto& v : plan.variants) {
        for (const auto& p : plan.policies) {
          if (p == kClockSequence) continue;  // cells of its own, below
          plan.cells.push_back(
              {std::string(s->name), v, p, "", "", persist, ms, std::nullopt, scale});
        }
      }
    }
    if (clock_sequence) add_clock_sequence_cells(cfg, *s, scale, plan.cells);
    if (!s->steps_back || (cfg.quick && (s->restarts || backward_steps(*s) < 2))) continue;
    const double full = program_scale(plan.time_scale);
    const std::int64_t program_ms = scaled(*s, full).duration_ms;
    for (std::size_t i = 0; i < cfg.programs.size(); ++i) {
      plan.cells.push_back({std::string(s->name), cfg.programs[i].name, kItsOwn, "", "", false,
                            program_ms, i, full});
    }
  }
  return plan;
}

int run_matrix(const MatrixPlan& plan, std::FILE* progress) {
  MatrixDocument doc(plan);
  doc.write();  // a whole file, `complete: false`, before the first cell: --out fails early
  print_plan(plan, progress);
  InterruptGuard guard;  // between cells too: a signal stops the matrix with the file whole
  const std::int64_t began = plumbing::monotonic_ns();
  double overhead_s = 0;  // measured wall time beyond the scenarios' own durations
  for (std::size_t i = 0; i < plan.cells.size(); ++i) {
    throw_if_interrupted();
    const MatrixCell& c = plan.cells[i];
    print_cell_start(plan, i, progress);
    const std::int64_t cell_began = plumbing::monotonic_ns();
    CellOutcome outcome = run_cell(plan, c);
    print_cell_result(outcome, progress);
    overhead_s +=
        static_cast<double>(plumbing::monotonic_ns() - cell_began) / 1e9 - c.duration_ms / 1000.0;
    doc.add(std::move(outcome));
    doc.write();
    print_time_left(plan, i, static_cast<double>(plumbing::monotonic_ns() - began) / 1e9,
                    overhead_s, progress);
  }
  doc.finish(static_cast<double>(plumbing::monotonic_ns() - began) / 1e9);
  doc.write();
  print_summary(doc, progress);
  return doc.failures() == 0 ? 0 : 1;
}

}  // namespace idbench::chaos
