// matrix_plan_test — which cells the chaos matrix plans, from the variant descriptions alone.
#include <gtest/gtest.h>

#include <algorithm>

#include "chaos/matrix.hpp"
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

}  // namespace
}  // namespace idbench::chaos
