// clock_nemesis_test.cpp — the clock nemesis on tiny shell nodes (no libfaketime: a recording
// clock drive keeps what was written): a step moves the named node's clock and writes it, recorded
// once with its instant and the faked time it left; a rate change for every node writes each and
// records the first node's faked time; a resume's clock part moves without a record; a killed
// node's file is not written but its clock still moves; a verb it does not play fails; and its
// repertoire (what a schedule may ask of it) is exactly what it plays.
#include "chaos/clock_nemesis.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "chaos/clock_drive.hpp"
#include "plumbing/raw_time.hpp"
#include "plumbing/temp_dir.hpp"

namespace idbench::chaos {
namespace {

constexpr std::int64_t kMs = 1'000'000;

// The models written to each node, as text ("" until one is).
class RecordingDrive : public ClockDrive {
 public:
  static std::string text(const ClockModel& m) {
    return std::to_string(m.anchor_true()) + " " + std::to_string(m.anchor_fake()) + " x" +
           std::to_string(m.rate());
  }
  ClockInjector injector() const override { return ClockInjector::libfaketime; }
  fault::NodeLaunch launch(const NodeClock&, std::vector<std::string> argv) const override {
    return {std::move(argv), std::nullopt, {}};
  }
  void before_start(NodeClock&, bool) override {}
  void ready(NodeClock&, std::int64_t, std::int64_t) override {}
  void write(const NodeClock& n, const ClockModel& m) override {
    written[static_cast<std::size_t>(n.index)] = text(m);
  }
  std::vector<std::string> written{"", ""};
};

// Two running nodes whose clocks read true time.
struct Rig {
  Rig()
      : dir("idbench-clock-nemesis-test"),
        fleet(
            [this](int k, int incarnation) {
              return fault::NodeLaunch{{"/bin/sh", "-c", "echo ready; exec sleep 60"},
                                       std::nullopt,
                                       dir.path() + "/node-" + std::to_string(k) + ".inc-" +
                                           std::to_string(incarnation) + ".err"};
            },
            10'000 * kMs),
        timeline("test", "clock", nullptr) {
    const std::int64_t now = plumbing::true_ns();
    for (int k = 0; k < 2; ++k) {
      NodeClock n;
      n.index = k;
      n.clock = ClockModel(now, now);
      nodes.push_back(n);
      fleet.start(k);
    }
  }
  std::string file_of(int k) const { return drive.written[static_cast<std::size_t>(k)]; }
  std::string expected_setting(int k) const {
    return RecordingDrive::text(nodes[static_cast<std::size_t>(k)].clock);
  }

  plumbing::TempDir dir;
  std::vector<NodeClock> nodes;
  fault::Fleet fleet;
  fault::Timeline timeline;
  RecordingDrive drive;
};

TEST(ClockNemesis, AStepMovesTheNamedNodeAndIsRecordedWithItsFakedTime) {
  Rig r;
  ClockNemesis clocks(r.nodes, r.fleet, r.drive);
  EXPECT_EQ(clocks.kind(), "clock");
  const fault::Instant at = fault::Instant::now();
  clocks.invoke({.op = "step",
                 .node = 1,
                 .step_ns = -200 * kMs,
                 .kind = "step",
                 .what = "NTP steps node 1 back 200 ms",
                 .at = at},
                r.timeline);
  const std::int64_t after = plumbing::true_ns();
  ASSERT_EQ(r.timeline.history().size(), 1u);
  const fault::FaultRecord& rec = r.timeline.history()[0];
  EXPECT_EQ(rec.true_ns, at.true_ns);
  EXPECT_EQ(rec.mono_ns, at.mono_ns);
  EXPECT_EQ(rec.node, 1);
  EXPECT_EQ(rec.kind, "step");
  EXPECT_EQ(rec.what, "NTP steps node 1 back 200 ms");
  ASSERT_TRUE(rec.faked_ns);
  // 200 ms behind true time, read between the step and the end of the call.
  EXPECT_GE(*rec.faked_ns, at.true_ns - 200 * kMs);
  EXPECT_LE(*rec.faked_ns, after - 200 * kMs);
  EXPECT_EQ(r.nodes[1].clock.fake_at(at.true_ns), at.true_ns - 200 * kMs);
  EXPECT_EQ(r.file_of(1), r.expected_setting(1));
  EXPECT_EQ(r.file_of(0), "");  // node 0 untouched
  EXPECT_EQ(r.nodes[1].facts.clock_writes.size(), 1u);
  EXPECT_TRUE(r.nodes[0].facts.clock_writes.empty());
}

TEST(ClockNemesis, ARateChangeForEveryNodeWritesEachAndRecordsTheFirstNodesFakedTime) {
  Rig r;
  ClockNemesis clocks(r.nodes, r.fleet, r.drive);
  clocks.invoke(
      {.op = "set_rate", .rate = 1.5, .kind = "set_rate", .what = "every clock runs fast"},
      r.timeline);
  ASSERT_FALSE(r.timeline.history().empty());
  const fault::FaultRecord& rec = r.timeline.history().back();
  EXPECT_EQ(rec.node, fault::kNoNode);
  EXPECT_EQ(rec.kind, "set_rate");
  ASSERT_TRUE(rec.faked_ns);
  for (int k = 0; k < 2; ++k) {
    EXPECT_EQ(r.nodes[static_cast<std::size_t>(k)].clock.rate(), 1.5);
    EXPECT_EQ(r.file_of(k), r.expected_setting(k));
    EXPECT_EQ(r.nodes[static_cast<std::size_t>(k)].facts.clock_writes.size(), 1u);
  }
  const Interval w = r.nodes[0].facts.clock_writes[0];
  EXPECT_EQ(*rec.faked_ns, r.nodes[0].clock.fake_at(w.to));
}

TEST(ClockNemesis, AResumesClockPartMovesWithoutARecord) {
  Rig r;
  ClockNemesis clocks(r.nodes, r.fleet, r.drive);
  const fault::Instant at = fault::Instant::now();
  const std::int64_t faked =
      clocks.move({.op = "resume", .node = 0, .step_ns = 300 * kMs}, r.nodes[0], at, r.timeline);
  EXPECT_TRUE(r.timeline.history().empty());
  EXPECT_EQ(r.nodes[0].clock.fake_at(at.true_ns), at.true_ns + 300 * kMs);
  EXPECT_GE(faked, at.true_ns + 300 * kMs);
  EXPECT_EQ(r.file_of(0), r.expected_setting(0));
}

TEST(ClockNemesis, AKilledNodesFileIsNotWrittenButItsClockMoves) {
  Rig r;
  r.fleet.kill(0);
  ClockNemesis clocks(r.nodes, r.fleet, r.drive);
  const fault::Instant at = fault::Instant::now();
  clocks.invoke(
      {.op = "step", .node = 0, .step_ns = -kMs, .kind = "step", .what = "back", .at = at},
      r.timeline);
  EXPECT_EQ(r.file_of(0), "");
  EXPECT_EQ(r.nodes[0].clock.fake_at(at.true_ns), at.true_ns - kMs);
  EXPECT_EQ(r.nodes[0].facts.clock_writes.size(), 1u);
}

TEST(ClockNemesis, AVerbItDoesNotPlayFailsAndRecordsNothing) {
  Rig r;
  ClockNemesis clocks(r.nodes, r.fleet, r.drive);
  EXPECT_THROW(clocks.invoke({.op = "pause", .node = 0, .kind = "stop", .what = "x"}, r.timeline),
               std::logic_error);
  EXPECT_TRUE(r.timeline.history().empty());
}

// scenario.cpp checks its dispatch table against kRepertoire at compile time: each verb there
// is played, and a resume (the process nemesis's verb, whose clock part is a move) is not.
TEST(ClockNemesis, ItsRepertoireIsWhatItPlays) {
  Rig r;
  ClockNemesis clocks(r.nodes, r.fleet, r.drive);
  EXPECT_EQ(clocks.kind(), ClockNemesis::kRepertoire.nemesis);
  for (const std::string_view verb : ClockNemesis::kVerbs) {
    EXPECT_NO_THROW(clocks.invoke({.op = verb,
                                   .node = 0,
                                   .step_ns = -kMs,
                                   .rate = 1.0,
                                   .kind = std::string(verb),
                                   .what = "x"},
                                  r.timeline))
        << verb;
  }
  EXPECT_EQ(r.timeline.history().size(), ClockNemesis::kVerbs.size());
  EXPECT_FALSE(ClockNemesis::kRepertoire.plays("resume"));
  EXPECT_THROW(
      clocks.invoke({.op = "resume", .node = 0, .kind = "resume", .what = "x"}, r.timeline),
      std::logic_error);
}

}  // namespace
}  // namespace idbench::chaos
