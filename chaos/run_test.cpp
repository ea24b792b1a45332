// End-to-end chaos runs: real node processes under libfaketime, every scenario shortened
// (--time-scale) so the whole file runs in seconds. Each test checks what its scenario must
// show, and the fixture checks that nothing is left behind: no child process, no
// /dev/shm/faketime_* entry of a dead process.
#include <dirent.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "chaos/driver.hpp"
#include "chaos/leftovers.hpp"
#include "generators/errors.hpp"
#include "generators/layout.hpp"

namespace idbench::chaos {
namespace {

namespace fs = std::filesystem;

// Processes whose parent is this test process.
std::vector<int> our_children() {
  std::vector<int> out;
  DIR* proc = ::opendir("/proc");
  while (const dirent* d = ::readdir(proc)) {
    const int pid = std::atoi(d->d_name);
    if (pid <= 0) continue;
    std::ifstream stat(fmt::format("/proc/{}/stat", pid));
    std::string line;
    std::getline(stat, line);
    const std::size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 2));
    char state = 0;
    int ppid = 0;
    rest >> state >> ppid;
    if (ppid == ::getpid()) out.push_back(pid);
  }
  ::closedir(proc);
  return out;
}

class ChaosRun : public ::testing::Test {
 protected:
  void SetUp() override {
    sweep_stale_faketime_shm();
    ASSERT_TRUE(our_children().empty());
  }
  void TearDown() override {
    EXPECT_TRUE(our_children().empty()) << "a node outlived its run";
    EXPECT_EQ(sweep_stale_faketime_shm(), 0) << "a run left /dev/shm/faketime_* behind";
  }

  static RunResult run(const std::string& scenario, const std::string& variant,
                       const std::string& policy, double scale = 0.25) {
    RunConfig cfg;
    cfg.scenario = scenario;
    cfg.variant = variant;
    cfg.policy = policy;
    cfg.time_scale = scale;
    cfg.rate = 20'000;
    return run_chaos(cfg, nullptr);
  }
};

TEST_F(ChaosRun, NtpStepBackRefusesWithoutDuplicates) {
  const RunResult r = run("ntp-step-back", "cas", "refuse");
  EXPECT_GT(r.analysis.ids, 0u);
  EXPECT_GT(r.analysis.refusals, 0u);
  EXPECT_EQ(r.analysis.duplicates, 0u);
  EXPECT_LT(r.analysis.availability, 1.0);
  EXPECT_TRUE(r.verdict.promise_kept);
}

TEST_F(ChaosRun, UnsafeIsCaughtUnderNtpStepBack) {
  const RunResult r = run("ntp-step-back", "mutex", "unsafe");
  EXPECT_GT(r.analysis.duplicates, 0u);
  EXPECT_GT(r.analysis.duplicates_within_process, 0u);
  EXPECT_EQ(r.analysis.refusals, 0u);
  EXPECT_TRUE(r.verdict.caught);
  EXPECT_TRUE(r.verdict.promise_kept) << "unsafe promises nothing: its duplicates are caught";
  // The IDs went back in time as far as the clock did.
  EXPECT_GT(r.analysis.ksort_bound_ms, 200 * 0.25);
}

TEST_F(ChaosRun, NtpSlewNeverStepsSoNothingIsRefused) {
  // A rate change must not step the clock: this is what the calibration of node.hpp buys.
  const RunResult r = run("ntp-slew", "mutex", "refuse", 0.5);
  EXPECT_GT(r.analysis.ids, 0u);
  EXPECT_EQ(r.analysis.refusals, 0u);
  EXPECT_EQ(r.analysis.duplicates, 0u);
  EXPECT_LT(*r.analysis.id_skew_min_ms, -10.0);  // node 0 fell ~35 ms behind
}

TEST_F(ChaosRun, LeapSecondRepeatsASecondAndRefuseRefusesIt) {
  const RunResult r = run("leap-second", "thread-local", "refuse");
  EXPECT_GT(r.analysis.refusals, 0u);
  EXPECT_EQ(r.analysis.duplicates, 0u);
  EXPECT_EQ(r.analysis.timeline.reference_start_unix_ms / 1000, 1'483'228'799);  // 23:59:59.5
  EXPECT_TRUE(r.verdict.promise_kept);
}

TEST_F(ChaosRun, LeapSmearAbsorbsTheSecondWithoutAStep) {
  const RunResult r = run("leap-smear", "uuidv7", "refuse", 0.5);
  EXPECT_EQ(r.analysis.refusals, 0u);
  EXPECT_EQ(r.analysis.duplicates, 0u);
  EXPECT_LT(*r.analysis.id_skew_min_ms, -400.0);  // half a second behind by the end
}

TEST_F(ChaosRun, VmPauseIsDownTimeAndWaitOutlastsTheOvershoot) {
  const RunResult r = run("vm-pause", "cas", "wait", 0.3);
  EXPECT_EQ(r.analysis.duplicates, 0u);
  EXPECT_NEAR(r.analysis.nodes[0].down_ms, 300, 50);
  EXPECT_GT(r.analysis.max_stall_ms, 40);  // waited out (most of) the 90 ms step back
  EXPECT_TRUE(r.verdict.promise_kept);
}

TEST_F(ChaosRun, EpochExhaustionRefusesNamingTheLastDate) {
  const RunResult r = run("epoch-exhaustion", "mutex", "borrow", 0.4);
  EXPECT_GT(r.analysis.ids, 0u);
  EXPECT_GT(r.analysis.refusals_by_kind.at("epoch_exhausted"), 0u);
  EXPECT_NE(r.analysis.refusal_messages.at("epoch_exhausted").find("2080-07-10T17:30:30.208Z"),
            std::string::npos);
  EXPECT_EQ(r.analysis.wrapped_ids, 0u);
  EXPECT_TRUE(r.verdict.promise_kept);
}

TEST_F(ChaosRun, WorkerCollisionDuplicatesAcrossNodesAndIsCaught) {
  const RunResult r = run("worker-collision", "cas", "refuse", 0.4);
  EXPECT_EQ(r.node_ids[0], r.node_ids[1]);
  EXPECT_GT(r.analysis.duplicates_across_nodes, 0u);
  EXPECT_EQ(r.analysis.duplicates_within_process, 0u);
  EXPECT_TRUE(r.verdict.caught);
  EXPECT_TRUE(r.verdict.promise_kept);
}

TEST_F(ChaosRun, SkewWidensTheKsortBound) {
  const RunResult r = run("skew", "cas", "refuse", 0.4);
  // ±20 ms: IDs of the node 40 ms ahead sort after IDs issued up to ~40 ms later. (The upper
  // bound is loose: a node descheduled between next() and its true-time read looks later.)
  EXPECT_GT(r.analysis.ksort_bound_ms, 30);
  EXPECT_LT(r.analysis.ksort_bound_ms, 200);
  EXPECT_EQ(r.analysis.refusals, 0u);
}

TEST_F(ChaosRun, RestartDuringRegressionDuplicatesWithoutPersistAndNotWithIt) {
  RunConfig cfg;
  cfg.scenario = "restart-during-regression";
  cfg.variant = "mutex";
  cfg.policy = "refuse";
  cfg.time_scale = 0.3;  // kill at 300 ms, clock −300 ms, restart at 330 ms, stop at 1050 ms
  cfg.rate = 20'000;
  const RunResult without = run_chaos(cfg, nullptr);
  EXPECT_GT(without.analysis.duplicates_across_restart, 0u);
  EXPECT_TRUE(without.verdict.promise_kept) << "in-memory policies promise nothing across restarts";
  EXPECT_TRUE(without.verdict.caught);

  std::string tmpl = (fs::temp_directory_path() / "idbench-marks-XXXXXX").string();
  cfg.persist_dir = ::mkdtemp(tmpl.data());
  cfg.reserve_ms = 100;  // so the restarted node passes the mark within the short run
  const RunResult with = run_chaos(cfg, nullptr);
  fs::remove_all(cfg.persist_dir);
  EXPECT_EQ(with.analysis.duplicates, 0u);
  EXPECT_GT(with.analysis.refusals, 0u) << "the restarted node refuses until it passes the mark";
  ASSERT_EQ(with.analysis.nodes[0].ids_per_incarnation.size(), 2u);
  EXPECT_GT(with.analysis.nodes[0].ids_per_incarnation[1], 0u) << "and then issues again";
  EXPECT_TRUE(with.verdict.promise_kept);
}

TEST_F(ChaosRun, ABadConfigurationFailsCleanly) {
  RunConfig cfg;
  cfg.scenario = "skew";
  cfg.variant = "cas";
  cfg.nodes = 2;
  cfg.threads = 600;  // node ids beyond the twitter layout's 1023
  EXPECT_THROW(run_chaos(cfg, nullptr), Error);
  cfg.threads = 2;
  cfg.scenario = "no-such-scenario";
  EXPECT_THROW(run_chaos(cfg, nullptr), Error);
  cfg.scenario = "epoch-exhaustion";
  cfg.variant = "auto-increment";  // no timestamp to exhaust
  EXPECT_THROW(run_chaos(cfg, nullptr), NotApplicable);
  cfg.variant = "uuidv7";  // 48-bit ms end in 10889, past the Clock seam's 2262
  EXPECT_THROW(run_chaos(cfg, nullptr), NotApplicable);
}

}  // namespace
}  // namespace idbench::chaos
