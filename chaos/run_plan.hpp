// run_plan.hpp — what a chaos run plays, settled before any process starts: the configuration
// checked, the scenario at its time scale, what the nodes run (a variant, or an external
// program's description), their node ids and, for epoch-exhaustion, the variant's last instant;
// and what follows from the plan alone: a node's generator flags, its clock skew, the
// reference clock's offset, the judge's setup and the figures the analysis needs besides
// the records. The driver (driver.cpp) plays the plan.
//
//   RunPlan plan = plan_run(cfg);         // throws Error, NotApplicable (driver.hpp)
//   plan.node_ids[k];                     // node k's id: k·T, or node 0's again (collision)
//   plan.skew_ns(k);                      // its clock's skew from the scenario
//
// Thread safety: plain values and pure functions (plan_run probes a generator on a manual
// clock for epoch-exhaustion).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "chaos/analysis.hpp"
#include "chaos/driver.hpp"
#include "chaos/judge.hpp"
#include "chaos/scenario.hpp"
#include "generators/registry.hpp"

namespace idbench::chaos {

struct RunPlan {
  RunConfig cfg;
  Scenario scenario;  // scaled by cfg.time_scale
  Variant variant;    // what the nodes run: the variant's description, or the program's
  std::vector<std::uint64_t> node_ids;
  std::optional<std::int64_t> lifetime_last_ms;  // epoch-exhaustion only

  // The node flags that say what it runs: the variant, or the program and its description.
  std::vector<std::string> generator_args() const;
  // Node k's clock offset from the scenario's skew: −skew … +skew spread over the nodes.
  std::int64_t skew_ns(int k) const;
  // reference(t) − t for a run whose instant 0 is `start_true_ns` (analysis.hpp's RunFacts).
  std::int64_t reference_offset(std::int64_t start_true_ns) const;
};

// Checks the configuration and settles the plan; throws Error for a bad one (naming the
// choices) and NotApplicable when the scenario cannot be played with the variant.
RunPlan plan_run(const RunConfig& cfg);

// A stored high-water mark must be readable and whole before any node starts from it: throws
// Error naming the file (not a node that fails, or never issues, later).
void check_marks(const RunPlan& plan);

// What the verdict depends on besides the analysis; `events` are the run's, notes included
// (they are not faults and are left out).
JudgeSetup judge_setup(const RunPlan& plan, std::int64_t start_true_ns,
                       const std::vector<LoggedEvent>& events);

// The run's facts that follow from the plan (what the IDs carry and how to read it); the
// driver adds the run directory, the instants, the nodes and the events.
RunFacts plan_facts(const RunPlan& plan);

}  // namespace idbench::chaos
