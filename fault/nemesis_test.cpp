// nemesis_test.cpp — the process nemesis on tiny shell nodes: a pause stops the process (the
// kernel says 'T') and a resume lets it run, each with one record carrying its instant; a kill
// and a start make the next incarnation; a step for every node plays on each; a new node can be
// started; the domain's hooks see every move; teardown resumes what is still paused; a verb it
// does not play fails; and the check of a pause catches a nemesis that does not stop the node.
#include "fault/nemesis.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "fault/testing/shell_nodes.hpp"
#include "plumbing/raw_time.hpp"
#include "plumbing/temp_dir.hpp"

namespace idbench::fault {
namespace {

constexpr std::int64_t kSecond = 1'000'000'000;

using fault_testing::runs;
using fault_testing::sleepers;
using fault_testing::state_of;
using fault_testing::stops;

// Plays a pause of node 0 on `nemesis` and checks what a pause promises: the process is stopped
// and the step is recorded once, at an instant inside the call.
testing::AssertionResult pause_stops_node0(Nemesis& nemesis, Fleet& fleet, Timeline& t) {
  const std::size_t records = t.history().size();
  const Instant before = Instant::now();
  nemesis.invoke({.op = "pause", .node = 0, .kind = "pause-node", .what = "node 0 paused"}, t);
  const Instant after = Instant::now();
  if (!stops(fleet.process(0).pid())) {
    return testing::AssertionFailure()
           << "node 0 is not stopped: state " << state_of(fleet.process(0).pid());
  }
  if (t.history().size() != records + 1) return testing::AssertionFailure() << "not one record";
  const FaultRecord& r = t.history().back();
  if (r.node != 0 || r.kind != "pause-node" || r.what != "node 0 paused") {
    return testing::AssertionFailure() << "recorded " << r.node << " " << r.kind << " " << r.what;
  }
  if (r.true_ns < before.true_ns || r.true_ns > after.true_ns || r.mono_ns < before.mono_ns ||
      r.mono_ns > after.mono_ns) {
    return testing::AssertionFailure() << "recorded outside the call";
  }
  return testing::AssertionSuccess();
}

TEST(ProcessNemesis, APauseStopsTheNodeAndAResumeLetsItRunEachRecordedOnce) {
  plumbing::TempDir dir("idbench-nemesis-test");
  Fleet fleet(sleepers(dir), 10 * kSecond);
  fleet.start(0);
  Timeline t("test", "pause", nullptr);
  ProcessNemesis nemesis(fleet);
  EXPECT_EQ(nemesis.kind(), "process");
  ASSERT_TRUE(pause_stops_node0(nemesis, fleet, t));
  EXPECT_TRUE(fleet.paused(0));
  const Instant at = Instant::now();
  nemesis.invoke(
      {.op = "resume", .node = 0, .kind = "resume-node", .what = "node 0 resumed", .at = at}, t);
  const pid_t pid = fleet.process(0).pid();
  EXPECT_TRUE(runs(pid)) << state_of(pid);
  ASSERT_EQ(t.history().size(), 2u);
  EXPECT_EQ(t.history()[1].true_ns, at.true_ns);  // a given instant is the record's
  EXPECT_EQ(t.history()[1].mono_ns, at.mono_ns);
  EXPECT_EQ(t.history()[1].kind, "resume-node");
  EXPECT_FALSE(t.history()[1].faked_ns);  // no clock moved
}

// A planted defect: a process nemesis whose pause only records. The check above must fail on it.
class PauseThatDoesNotStop : public ProcessNemesis {
 public:
  using ProcessNemesis::ProcessNemesis;
  void invoke(const FaultStep& step, Timeline& t) override {
    if (step.op == "pause") {
      t.record(step.node, step.kind, step.what);
      return;
    }
    ProcessNemesis::invoke(step, t);
  }
};

TEST(ProcessNemesis, TheCheckOfAPauseCatchesANemesisThatDoesNotStopTheNode) {
  plumbing::TempDir dir("idbench-nemesis-test");
  Fleet fleet(sleepers(dir), 10 * kSecond);
  fleet.start(0);
  Timeline t("test", "planted", nullptr);
  PauseThatDoesNotStop planted(fleet);
  EXPECT_FALSE(pause_stops_node0(planted, fleet, t));
}

TEST(ProcessNemesis, AKillAndAStartMakeTheNextIncarnation) {
  plumbing::TempDir dir("idbench-nemesis-test");
  Fleet fleet(sleepers(dir), 10 * kSecond);
  fleet.start(0);
  const pid_t first = fleet.process(0).pid();
  Timeline t("test", "kill", nullptr);
  ProcessNemesis nemesis(fleet);
  nemesis.invoke({.op = "kill", .node = 0, .kind = "kill", .what = "node 0 killed"}, t);
  EXPECT_FALSE(fleet.running(0));
  nemesis.invoke({.op = "start", .node = 0, .kind = "restart", .what = "node 0 again"}, t);
  EXPECT_TRUE(fleet.running(0));
  EXPECT_EQ(fleet.incarnation(0), 1);
  EXPECT_NE(fleet.process(0).pid(), first);
  ASSERT_EQ(t.history().size(), 2u);
  EXPECT_EQ(t.history()[0].kind, "kill");
  EXPECT_EQ(t.history()[1].kind, "restart");
  EXPECT_LE(t.history()[0].mono_ns, t.history()[1].mono_ns);
}

TEST(ProcessNemesis, AStepForEveryNodePlaysOnEachAndTheHooksSeeEveryMove) {
  plumbing::TempDir dir("idbench-nemesis-test");
  Fleet fleet(sleepers(dir), 10 * kSecond);
  fleet.start(0);
  fleet.start(1);
  Timeline t("test", "all", nullptr);
  std::vector<std::string> seen;
  ProcessNemesis::Hooks hooks;
  hooks.start = [&](int k) {
    seen.push_back("start " + std::to_string(k));
    fleet.start(k);
  };
  hooks.before_resume = [&](const FaultStep& s, int k, Instant) -> std::optional<std::int64_t> {
    seen.push_back("clock " + std::to_string(k));
    return 1000 * (k + 1) + s.step_ns;
  };
  hooks.played = [&](const FaultStep& s, int k, Instant) {
    seen.push_back(std::string(s.op) + " " + std::to_string(k));
  };
  ProcessNemesis nemesis(fleet, hooks);
  nemesis.invoke({.op = "pause", .kind = "stop", .what = "every node paused"}, t);
  EXPECT_TRUE(stops(fleet.process(0).pid()));
  EXPECT_TRUE(stops(fleet.process(1).pid()));
  nemesis.invoke({.op = "resume", .step_ns = 7, .kind = "resume", .what = "every node resumed"}, t);
  nemesis.invoke({.op = "start", .node = 2, .kind = "start", .what = "a new node"}, t);
  EXPECT_EQ(fleet.size(), 3);
  EXPECT_EQ(seen, (std::vector<std::string>{"pause 0", "pause 1", "clock 0", "resume 0", "clock 1",
                                            "resume 1", "start 2", "start 2"}));
  ASSERT_EQ(t.history().size(), 3u);
  EXPECT_EQ(t.history()[0].node, kNoNode);
  EXPECT_EQ(t.history()[1].faked_ns.value_or(-1), 1007);  // the first node's faked time
  EXPECT_EQ(t.history()[2].node, 2);
}

TEST(ProcessNemesis, TeardownResumesWhatIsStillPausedAndRecordsNothing) {
  plumbing::TempDir dir("idbench-nemesis-test");
  Fleet fleet(sleepers(dir), 10 * kSecond);
  fleet.start(0);
  Timeline t("test", "teardown", nullptr);
  ProcessNemesis nemesis(fleet);
  nemesis.invoke({.op = "pause", .node = 0, .kind = "stop", .what = "paused"}, t);
  ASSERT_TRUE(stops(fleet.process(0).pid()));
  nemesis.teardown(t);
  EXPECT_FALSE(fleet.paused(0));
  EXPECT_TRUE(runs(fleet.process(0).pid()));
  EXPECT_EQ(t.history().size(), 1u);
}

TEST(ProcessNemesis, AVerbItDoesNotPlayFailsAndRecordsNothing) {
  plumbing::TempDir dir("idbench-nemesis-test");
  Fleet fleet(sleepers(dir), 10 * kSecond);
  fleet.start(0);
  Timeline t("test", "wrong", nullptr);
  ProcessNemesis nemesis(fleet);
  EXPECT_THROW(nemesis.invoke({.op = "set_rate", .node = 0, .kind = "set_rate", .what = "x"}, t),
               std::logic_error);
  EXPECT_TRUE(t.history().empty());
}

}  // namespace
}  // namespace idbench::fault
