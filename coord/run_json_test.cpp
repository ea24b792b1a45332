// run_json_test.cpp — a worker-id run's JSON carries its verdict (the word, the passed flag,
// the evidence line and the findings) beside the figures the report already reads.
#include "coord/run_json.hpp"

#include <gtest/gtest.h>

#include "coord/judge.hpp"

namespace idbench::coord {
namespace {

WorkerRunResult zombie_run() {
  WorkerRunResult r;
  r.start_ns = 1'000'000;
  r.end_ns = 3'000'000;
  r.analysis.ids = 1200;
  r.analysis.duplicates = 3;
  r.analysis.nodes.resize(2);
  for (int n = 0; n < 2; ++n) {
    r.analysis.nodes[n].node = n;
    r.analysis.nodes[n].ids = 600;
  }
  r.analysis.nodes[0].zombie_ids = 5;
  r.verdict = judge(r.analysis);
  return r;
}

TEST(CoordRunJson, CarriesTheRunsVerdict) {
  const WorkerRunResult r = zombie_run();
  const nlohmann::json j = to_json(r);
  ASSERT_TRUE(j.contains("verdict"));
  EXPECT_EQ(j["verdict"]["verdict"], "DUPLICATES");
  EXPECT_EQ(j["verdict"]["passed"], false);
  EXPECT_EQ(j["verdict"]["evidence"], r.verdict.evidence);
  ASSERT_EQ(j["verdict"]["findings"].size(), 1u);
  EXPECT_EQ(j["verdict"]["findings"][0], r.verdict.findings[0]);
}

TEST(CoordRunJson, AKeptRunPasses) {
  WorkerRunResult r = zombie_run();
  r.analysis.duplicates = 0;
  r.verdict = judge(r.analysis);
  const nlohmann::json j = to_json(r);
  EXPECT_EQ(j["verdict"]["verdict"], "kept");
  EXPECT_EQ(j["verdict"]["passed"], true);
}

// The keys the report and the gate read keep their names and meaning beside the verdict.
TEST(CoordRunJson, TheReportsKeysStay) {
  const nlohmann::json j = to_json(zombie_run());
  for (const char* key : {"scenario", "behaviour", "duplicates", "nodes", "holdings", "faults",
                          "workers_claimed", "worker_space_used", "duplicate_samples"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["duplicates"], 3);
  EXPECT_DOUBLE_EQ(j["duration_ms"].get<double>(), 2.0);
}

}  // namespace
}  // namespace idbench::coord
