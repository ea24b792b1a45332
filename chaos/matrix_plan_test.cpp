// matrix_plan_test — which cells the chaos matrix plans, from the variant descriptions alone.
#include <gtest/gtest.h>

#include <algorithm>

#include "chaos/matrix.hpp"
#include "chaos/scenario.hpp"
#include "generators/registry.hpp"

namespace idbench::chaos {
namespace {

std::vector<MatrixCell> cells_of(const Variant& v, const MatrixPlan& plan) {
  std::vector<MatrixCell> out;
  std::ranges::copy_if(plan.cells, std::back_inserter(out),
                       [&](const MatrixCell& c) { return c.variant == v.name; });
  return out;
}

// A real library that keeps its own clock sequence (libuuid-v1) gets the
// clock-sequence cells in the quick matrix too, so its verdict reaches the default report;
// never with --persist, which is idbench's stable storage and not the library's.
TEST(MatrixPlan, AnOwnClockVariantKeepingAClockSequenceHasQuickCellsWithoutPersist) {
  MatrixConfig cfg;
  cfg.out_path = "unused.json";
  cfg.quick = true;
  const MatrixPlan plan = plan_matrix(cfg);
  int own = 0;
  for (const Variant& v : variants()) {
    if (!v.own_clock || !v.defaults.clock_sequence) continue;
    ++own;
    const auto cells = cells_of(v, plan);
    EXPECT_FALSE(cells.empty()) << v.name << " has no cell in the quick matrix";
    for (const auto& c : cells) {
      EXPECT_FALSE(c.persist) << v.name << " · " << c.scenario << " runs with --persist";
      EXPECT_EQ(c.policy, "clock-sequence");
    }
  }
  EXPECT_GT(own, 0) << "no own-clock variant keeps a clock sequence (libuuid-v1 should)";
}

TEST(MatrixPlan, EveryPersistCellIsOfAVariantIdbenchClocks) {
  MatrixConfig cfg;
  cfg.out_path = "unused.json";
  const MatrixPlan plan = plan_matrix(cfg);
  for (const auto& c : plan.cells) {
    if (!c.persist) continue;
    const Variant* v = find_variant(c.variant);
    ASSERT_NE(v, nullptr);
    EXPECT_FALSE(v->own_clock) << c.variant << " · " << c.scenario;
  }
}

// A program runs every scenario that steps a clock back, with its own policy and never with
// --persist; the quick matrix keeps those that step back more than once and do not restart.
TEST(MatrixPlan, AProgramRunsTheScenariosThatStepAClockBack) {
  for (const bool quick : {false, true}) {
    MatrixConfig cfg;
    cfg.out_path = "unused.json";
    cfg.quick = quick;
    cfg.programs = {{"node-x", "Snowflake", {}}};
    const MatrixPlan plan = plan_matrix(cfg);
    std::vector<std::string> ran;
    for (const auto& c : plan.cells) {
      if (!c.program) continue;
      EXPECT_EQ(c.variant, "node-x");
      EXPECT_EQ(c.policy, "its own");
      EXPECT_FALSE(c.persist);
      ran.push_back(c.scenario);
    }
    for (const Scenario& s : scenarios()) {
      int back = 0;
      for (const Event& e : s.events) {
        back += (e.kind == EventKind::step || e.kind == EventKind::resume) && e.step_ms < 0;
      }
      const bool wanted = s.steps_back && !(quick && (s.restarts || back < 2));
      EXPECT_EQ(std::ranges::count(ran, std::string(s.name)), wanted ? 1 : 0)
          << s.name << (quick ? " (quick)" : "");
    }
  }
}

// The quick matrix runs its timelines at a quarter of their length, except where a shorter one
// tests nothing: a restart's regression must outlast the restarted node's start (at a quarter,
// 0.25 s, a node with a persisted mark came back after its clock had caught up: no evidence),
// so restart cells run at half length, and a program's at full length.
TEST(MatrixPlan, QuickCellsRunAtAQuarterExceptRestartsAtHalfAndProgramsInFull) {
  MatrixConfig cfg;
  cfg.out_path = "unused.json";
  cfg.quick = true;
  cfg.programs = {{"node-x", "Snowflake", {}}};
  const MatrixPlan plan = plan_matrix(cfg);
  int restarts = 0;
  for (const auto& c : plan.cells) {
    const Scenario* s = find_scenario(c.scenario);
    ASSERT_NE(s, nullptr);
    const double want = c.program ? 1.0 : s->restarts ? 0.5 : 0.25;
    EXPECT_EQ(c.time_scale, want) << c.scenario << " · " << c.variant;
    EXPECT_EQ(c.duration_ms, scaled(*s, want).duration_ms) << c.scenario << " · " << c.variant;
    restarts += s->restarts;
  }
  EXPECT_GT(restarts, 0) << "the quick matrix has no restart cell";
}

// A scale the user gives is every cell's but a program's, which never runs shorter than full.
TEST(MatrixPlan, AGivenTimeScaleIsEveryBuiltInCellsScale) {
  MatrixConfig cfg;
  cfg.out_path = "unused.json";
  cfg.quick = true;
  cfg.time_scale = 0.3;
  for (const auto& c : plan_matrix(cfg).cells) {
    EXPECT_EQ(c.time_scale, 0.3) << c.scenario << " · " << c.variant;
  }
}

}  // namespace
}  // namespace idbench::chaos
