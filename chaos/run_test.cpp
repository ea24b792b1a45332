// End-to-end chaos runs: real node processes under libfaketime, every scenario shortened
// (--time-scale) so the whole file runs in seconds. Each test checks what its scenario must
// show, and the fixture checks that nothing is left behind: no child process, no
// /dev/shm/faketime_* entry of a dead process.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <cmath>

#include "chaos/driver.hpp"
#include "chaos/high_water_mark.hpp"
#include "chaos/run_test_support.hpp"
#include "generators/errors.hpp"
#include "generators/layout.hpp"
#include "plumbing/temp_dir.hpp"

namespace idbench::chaos {
namespace {

namespace fs = std::filesystem;
using chaos_testing::ChaosRun;

// A driver descheduled while it rewrote a timestamp file (a busy machine) may step a clock
// back by µs, and says so in the event log: then a refusal is the harness's, not the policy's.
bool late_rate_change(const RunResult& r) {
  for (const auto& e : r.events) {
    if (e.kind == "note") return true;
  }
  return false;
}

TEST_F(ChaosRun, NtpStepBackRefusesWithoutDuplicates) {
  const RunResult r = run("ntp-step-back", "cas", "refuse");
  EXPECT_GT(r.analysis.ids, 0u);
  EXPECT_GT(r.analysis.refusals, 0u);
  EXPECT_EQ(r.analysis.duplicates, 0u);
  EXPECT_LT(r.analysis.availability, 1.0);
  EXPECT_TRUE(r.verdict.passed()) << r.verdict.evidence;
}

TEST_F(ChaosRun, UnsafeIsCaughtUnderNtpStepBack) {
  const RunResult r = run("ntp-step-back", "mutex", "unsafe");
  EXPECT_GT(r.analysis.duplicates, 0u);
  EXPECT_GT(r.analysis.duplicates_within_process, 0u);
  EXPECT_EQ(r.analysis.refusals, 0u);
  EXPECT_EQ(fault::name_of(r.verdict.outcome), "caught") << r.verdict.evidence;
  EXPECT_TRUE(r.verdict.passed()) << "unsafe promises nothing: its duplicates are caught; "
                                  << r.verdict.evidence;
  // The IDs went back in time as far as the clock did.
  EXPECT_GT(r.analysis.ksort_bound_ms, 200 * 0.25);
}

TEST_F(ChaosRun, NtpSlewNeverStepsSoNothingIsRefused) {
  // A rate change must not step the clock: this is what the calibration of node.hpp buys.
  const RunResult r = run("ntp-slew", "mutex", "refuse", 0.5);
  EXPECT_GT(r.analysis.ids, 0u);
  if (!late_rate_change(r)) {
    EXPECT_EQ(r.analysis.refusals, 0u);
  }
  EXPECT_EQ(r.analysis.duplicates, 0u);
  EXPECT_LT(*r.analysis.id_skew_min_ms, -10.0);  // node 0 fell ~35 ms behind
}

TEST_F(ChaosRun, LeapSecondRepeatsASecondAndRefuseRefusesIt) {
  // Scale 0.5: after the step back the clock takes 0.5 s to pass the last tick, and 50 ms of
  // IDs remain after it (evidence that the node issued again).
  const RunResult r = run("leap-second", "thread-local", "refuse", 0.5);
  EXPECT_GT(r.analysis.refusals, 0u);
  EXPECT_EQ(r.analysis.duplicates, 0u);
  EXPECT_EQ(r.analysis.timeline.reference_start_unix_ms / 1000, 1'483'228'799);  // 23:59:59.0
  EXPECT_TRUE(r.verdict.passed()) << r.verdict.evidence;
}

TEST_F(ChaosRun, LeapSmearAbsorbsTheSecondWithoutAStep) {
  const RunResult r = run("leap-smear", "uuidv7", "refuse", 0.5);
  if (!late_rate_change(r)) {
    EXPECT_EQ(r.analysis.refusals, 0u);
  }
  EXPECT_EQ(r.analysis.duplicates, 0u);
  EXPECT_LT(*r.analysis.id_skew_min_ms, -400.0);  // half a second behind by the end
}

TEST_F(ChaosRun, EpochExhaustionRefusesNamingTheLastDate) {
  const RunResult r = run("epoch-exhaustion", "mutex", "borrow", 0.4);
  EXPECT_GT(r.analysis.ids, 0u);
  EXPECT_GT(r.analysis.refusals_by_kind.at("epoch_exhausted"), 0u);
  EXPECT_NE(r.analysis.refusal_messages.at("epoch_exhausted").find("2080-07-10T17:30:30.208Z"),
            std::string::npos);
  EXPECT_EQ(r.analysis.wrapped_ids, 0u);
  EXPECT_TRUE(r.verdict.passed()) << r.verdict.evidence;
}

TEST_F(ChaosRun, WorkerCollisionDuplicatesAcrossNodesAndIsCaught) {
  const RunResult r = run("worker-collision", "cas", "refuse", 0.4);
  EXPECT_EQ(r.node_ids[0], r.node_ids[1]);
  EXPECT_GT(r.analysis.duplicates_across_nodes, 0u);
  EXPECT_EQ(r.analysis.duplicates_within_process, 0u);
  EXPECT_EQ(fault::name_of(r.verdict.outcome), "caught");
  EXPECT_TRUE(r.verdict.passed()) << r.verdict.evidence;
}

TEST_F(ChaosRun, RestartDuringRegressionDuplicatesWithoutPersistAndNotWithIt) {
  RunConfig cfg;
  cfg.scenario = "restart-during-regression";
  cfg.variant = "mutex";
  cfg.policy = "refuse";
  cfg.time_scale = 1.0;  // kill at 1 s, clock −1 s, restart at 1.1 s, stop at 3.2 s
  cfg.rate = 20'000;
  // The restarted node must issue inside the 900 ms it is behind; on a loaded 2-core machine
  // it can start too late to overlap, which says the machine was slow, not that the mark is
  // unnecessary. A 300 ms window was missed three times in a row by an ASan build beside
  // other tests, so the window is the scenario's full second, and up to three tries.
  RunResult without = run_chaos(cfg, nullptr);
  for (int attempt = 1; attempt < 3 && without.analysis.duplicates_across_restart == 0; ++attempt) {
    without = run_chaos(cfg, nullptr);
  }
  EXPECT_GT(without.analysis.duplicates_across_restart, 0u);
  EXPECT_TRUE(without.verdict.passed()) << "in-memory policies promise nothing across restarts";
  EXPECT_EQ(fault::name_of(without.verdict.outcome), "caught");

  const plumbing::TempDir marks("idbench-marks");  // removed even when run_chaos throws
  cfg.persist_dir = marks.path();
  // Short enough that the restarted node passes the mark within the run (mark ≈ 1.3 s on its
  // clock, reached at 2.3 s of 3.2), long enough that the first reservation (made when the
  // node arms, before the start) still covers the start + 100 ms where the restarted clock
  // lands even if node 0 issued nothing before its kill.
  cfg.reserve_ms = 300;
  const RunResult with = run_chaos(cfg, nullptr);
  EXPECT_EQ(with.analysis.duplicates, 0u);
  EXPECT_GT(with.analysis.refusals, 0u) << "the restarted node refuses until it passes the mark";
  ASSERT_EQ(with.analysis.nodes[0].ids_per_incarnation.size(), 2u);
  EXPECT_GT(with.analysis.nodes[0].ids_per_incarnation[1], 0u) << "and then issues again";
  EXPECT_TRUE(with.verdict.passed());
}

// A durable write slower than the time to the first fault (1.1 s; an fsync here took up to
// 880 ms while another process wrote 6 GB) must not eat the run: every node makes its first
// reservation (2 s ahead) before the run starts, all nodes at once, so both issue from the
// start and the kill at 1 s has evidence. The restarted node refuses until its clock passes
// the mark, then waits for its next durable write: part of its down time, as in production.
TEST_F(ChaosRun, ASlowDurableWriteDelaysTheStartNotTheEvidence) {
  plumbing::TempDir marks("idbench-marks");
  RunConfig cfg;
  cfg.scenario = "restart-during-regression";
  cfg.variant = "cas";
  cfg.policy = "refuse";
  cfg.time_scale = 1.0;  // kill at 1 s, clock −1 s, restart at 1.1 s, stop at 3.2 s
  cfg.rate = 20'000;
  cfg.persist_dir = marks.path();
  cfg.reserve_ms = 2000;
  cfg.slow_store_ms = 1100;
  const RunResult r = run_chaos(cfg, nullptr);
  EXPECT_TRUE(evidence_gaps(r.analysis, r.judged_on).empty()) << r.verdict.evidence;
  EXPECT_TRUE(r.verdict.passed()) << r.verdict.evidence;
  ASSERT_EQ(r.analysis.nodes.size(), 2u);
  EXPECT_GT(r.analysis.nodes[0].ids_per_incarnation[0], 0u) << "node 0 issued before its kill";
  EXPECT_EQ(r.analysis.duplicates, 0u);
}

TEST_F(ChaosRun, ABadConfigurationFailsCleanly) {
  RunConfig cfg;
  cfg.scenario = "skew";
  cfg.variant = "cas";
  cfg.scenario = "no-such-scenario";
  EXPECT_THROW(run_chaos(cfg, nullptr), Error);
  cfg.scenario = "epoch-exhaustion";
  cfg.variant = "auto-increment";  // no timestamp to exhaust
  EXPECT_THROW(run_chaos(cfg, nullptr), NotApplicable);
  cfg.variant = "uuidv7";  // 48-bit ms end in 10889, past the Clock seam's 2262
  EXPECT_THROW(run_chaos(cfg, nullptr), NotApplicable);
}

std::string error_of(const RunConfig& cfg) {
  try {
    run_chaos(cfg, nullptr);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// This test once used threads = 600, which the threads > 64 check rejected before the node
// ids were ever counted. 17 nodes × 64 threads is inside both limits and needs node ids up to
// 16·64 + 63 = 1087, beyond the twitter layout's 1023.
TEST_F(ChaosRun, NodeIdsBeyondTheLayoutAreRefusedBeforeAnyNodeStarts) {
  RunConfig cfg;
  cfg.scenario = "skew";
  cfg.variant = "cas";
  cfg.nodes = 17;
  cfg.threads = 64;
  EXPECT_EQ(error_of(cfg),
            "17 nodes × 64 threads need node ids up to 1087, beyond twitter's last node id 1023");
}

// These once produced 0 IDs and "kept", exit 0 (or, for NaN, ran at all).
TEST_F(ChaosRun, AbsurdRatesAndTimeScalesAreBadInput) {
  RunConfig cfg;
  cfg.scenario = "skew";
  cfg.variant = "cas";
  for (const double scale : {1e300, 1e-9, 0.0, -1.0, std::nan(""), HUGE_VAL}) {
    cfg.time_scale = scale;
    EXPECT_NE(error_of(cfg).find("--time-scale must be"), std::string::npos) << scale;
  }
  cfg.time_scale = 1;
  for (const double rate : {std::nan(""), HUGE_VAL, 1e300, -1.0, 1e-3}) {
    cfg.rate = rate;
    EXPECT_NE(error_of(cfg).find("--rate must be"), std::string::npos) << rate;
  }
}

// The temp directories a run of this process made and left (TempDir names the pid).
std::size_t our_temp_dirs() {
  std::size_t n = 0;
  const std::string mine = fmt::format("-{}-", ::getpid());
  for (const auto& e : fs::directory_iterator(fs::temp_directory_path())) {
    const std::string name = e.path().filename().string();
    if (name.starts_with("idbench-chaos") && name.find(mine) != std::string::npos) ++n;
  }
  return n;
}

// Once an uncaught filesystem_error, and the run directory left behind.
TEST_F(ChaosRun, APersistDirThatIsAFileIsOneClearErrorAndLeavesNothing) {
  const std::string file = (fs::temp_directory_path() / fmt::format("idbench-pf-{}", ::getpid()));
  std::ofstream(file) << "x";
  RunConfig cfg;
  cfg.scenario = "skew";
  cfg.variant = "cas";
  cfg.persist_dir = file;
  EXPECT_EQ(error_of(cfg), "--persist " + file + ": not a directory");
  cfg.persist_dir = file + "/sub";
  EXPECT_NE(error_of(cfg).find("--persist " + file + "/sub: cannot create"), std::string::npos);
  cfg.persist_dir.clear();
  cfg.keep_dir = file;
  EXPECT_EQ(error_of(cfg), "--keep " + file + ": not a directory");
  fs::remove(file);
  EXPECT_EQ(our_temp_dirs(), 0u);
}

// A corrupt mark is one clear line naming the file, before any node starts.
TEST_F(ChaosRun, ACorruptMarkStopsTheRunBeforeItStarts) {
  const plumbing::TempDir marks("idbench-marks");
  const std::string dir = marks.path();
  std::ofstream(mark_path(dir, 0)) << std::string(70, '0');
  RunConfig cfg;
  cfg.scenario = "restart-during-regression";
  cfg.variant = "cas";
  cfg.persist_dir = dir;
  const std::string msg = error_of(cfg);
  EXPECT_TRUE(msg.starts_with("high-water mark " + mark_path(dir, 0) + ": corrupt")) << msg;
  EXPECT_EQ(our_temp_dirs(), 0u);
}

// Both nodes of a worker collision store the mark of one node id; with one
// temp name `node-0.hwm.tmp` one renamed the other's away, and the run always failed.
TEST_F(ChaosRun, WorkerCollisionWithPersistedMarksRuns) {
  const plumbing::TempDir marks("idbench-marks");
  RunConfig cfg;
  cfg.scenario = "worker-collision";
  cfg.variant = "cas";
  cfg.time_scale = 0.4;
  cfg.rate = 20'000;
  cfg.reserve_ms = 1;  // a durable store nearly every ms, from both nodes at once
  cfg.persist_dir = marks.path();
  const RunResult r = run_chaos(cfg, nullptr);
  EXPECT_GT(r.analysis.duplicates_across_nodes, 0u);
  EXPECT_TRUE(r.verdict.passed()) << r.verdict.evidence;
}

}  // namespace
}  // namespace idbench::chaos
