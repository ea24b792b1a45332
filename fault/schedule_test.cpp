// schedule_test.cpp — a fault schedule played on a run's nemeses: a dispatch table is checked
// whole at compile time (a kind twice, a nemesis the domain lacks, a verb its nemesis does not
// play, a fixed node that is not a node are each refused); each step waits for its instant and
// goes to the nemesis its table names with its node resolved as the table says; records are
// stamped on time or when done; a wrong dispatch is refused before anything is played, a verb
// a nemesis does not play when it is played; a nemesis the run lacks fails with the run's
// reason; and the process nemesis plays each verb its repertoire names.
#include "fault/schedule.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "plumbing/error.hpp"
#include "plumbing/temp_dir.hpp"

namespace idbench::fault {
namespace {

enum class Move { freeze, thaw, jump, grow };

constexpr std::array<std::string_view, 2> kJumpVerbs = {"jump", "refused"};
constexpr Repertoire kJumper{"jumper", kJumpVerbs};
constexpr std::array<Repertoire, 2> kDomain = {ProcessNemesis::kRepertoire, kJumper};

constexpr std::array<Dispatch<Move>, 4> kMoves = {{
    {Move::freeze, "process", "pause", fixed_node(0)},
    {Move::thaw, "process", "resume", kNoTarget},
    {Move::jump, "jumper", "jump"},
    {Move::grow, "process", "start", kNewNode},
}};
static_assert(each_kind_once(kMoves) && playable(kMoves, kDomain));

// Planted wrong dispatches, each refused where the table is declared.
constexpr std::array<Dispatch<Move>, 2> kTwice = {{{Move::freeze, "process", "pause"},
                                                   {Move::freeze, "process", "resume"}}};
static_assert(!each_kind_once(kTwice));
constexpr std::array<Dispatch<Move>, 1> kClockVerbOnAProcess = {{{Move::jump, "process", "jump"}}};
static_assert(!playable(kClockVerbOnAProcess, kDomain));
constexpr std::array<Dispatch<Move>, 1> kNoSuchNemesis = {{{Move::jump, "clock", "jump"}}};
static_assert(!playable(kNoSuchNemesis, kDomain));
constexpr std::array<Dispatch<Move>, 1> kNegativeNode = {{{Move::freeze, "process", "pause",
                                                           fixed_node(-1)}}};
static_assert(!playable(kNegativeNode, kDomain));

// A nemesis that records what it was handed, and refuses the verb "refused".
class RecordingNemesis : public Nemesis {
 public:
  explicit RecordingNemesis(std::string kind) : kind_(std::move(kind)) {}
  std::string_view kind() const override { return kind_; }
  void invoke(const FaultStep& step, Timeline& t) override {
    if (step.op == "refused") throw std::logic_error("refused");
    seen.push_back(step);
    t.record_at(step.at.value_or(Instant::now()), step.node, step.kind, step.what);
  }
  std::vector<FaultStep> seen;

 private:
  std::string kind_;
};

constexpr std::int64_t kMs = 1'000'000;

ScheduledStep at_ms(std::int64_t ms, Move m, std::string what, int node = kNoNode) {
  return schedule_step(kMoves, m, ms * kMs,
                       {.node = node, .kind = "move", .what = std::move(what)});
}

TEST(ScheduleStep, CarriesTheVerbNemesisAndTargetItsTableDeclares) {
  const ScheduledStep s = at_ms(5, Move::freeze, "frozen", 3);
  EXPECT_EQ(s.at_ns, 5 * kMs);
  EXPECT_EQ(s.nemesis, "process");
  EXPECT_EQ(s.step.op, "pause");
  EXPECT_EQ(s.target.aim, Aim::fixed);
  EXPECT_EQ(s.step.node, 3);  // the event's own node, replaced by the fixed one when played
  const std::array<Dispatch<Move>, 1> partial = {{{Move::jump, "jumper", "jump"}}};
  EXPECT_THROW(dispatch_of(partial, Move::grow), std::logic_error);
}

TEST(PlaySchedule, PlaysEachStepAtItsInstantOnTheNemesisItsTableNames) {
  RecordingNemesis processes("process");
  RecordingNemesis jumper("jumper");
  Nemeses nemeses;
  nemeses.add(processes).add(jumper);
  Timeline t("test", "schedule", nullptr);
  t.start_in(0);
  // Out of order on purpose; the two at 10 ms keep their order.
  const std::vector<ScheduledStep> steps = {at_ms(30, Move::jump, "third", 1),
                                            at_ms(10, Move::freeze, "first"),
                                            at_ms(10, Move::jump, "second", 2)};
  const std::vector<Played> played = play_schedule(steps, nemeses, t);
  ASSERT_EQ(played.size(), 3u);
  EXPECT_EQ(played[0].step, 1u);
  EXPECT_EQ(played[1].step, 2u);
  EXPECT_EQ(played[2].step, 0u);
  ASSERT_EQ(t.history().size(), 3u);
  for (std::size_t i = 0; i < played.size(); ++i) {
    const FaultRecord& r = t.history()[played[i].record];
    EXPECT_EQ(r.what, steps[played[i].step].step.what);
    EXPECT_GE(r.mono_ns, t.start_mono_ns() + steps[played[i].step].at_ns) << r.what;
  }
  ASSERT_EQ(processes.seen.size(), 1u);
  EXPECT_EQ(processes.seen[0].op, "pause");
  ASSERT_EQ(jumper.seen.size(), 2u);
  EXPECT_EQ(jumper.seen[0].what, "second");
  EXPECT_EQ(jumper.seen[1].what, "third");
}

TEST(PlaySchedule, ResolvesEachTargetWhenTheStepIsPlayed) {
  RecordingNemesis processes("process");
  RecordingNemesis jumper("jumper");
  Nemeses nemeses;
  nemeses.add(processes).add(jumper);
  Timeline t("test", "schedule", nullptr);
  int next = 5;
  const std::vector<ScheduledStep> steps = {
      at_ms(0, Move::freeze, "fixed", 7), at_ms(0, Move::thaw, "none", 7),
      at_ms(0, Move::jump, "own", 7),     at_ms(0, Move::grow, "new"),
      at_ms(0, Move::grow, "newer")};
  play_schedule(steps, nemeses, t, {.new_node = [&] { return next++; }});
  std::vector<int> nodes;
  for (const FaultRecord& r : t.history()) nodes.push_back(r.node);
  EXPECT_EQ(nodes, (std::vector<int>{0, kNoNode, 7, 5, 6}));
  // Without a way to number a new node, a step for one cannot be played.
  EXPECT_THROW(play_schedule(std::vector{at_ms(0, Move::grow, "new")}, nemeses, t),
               std::logic_error);
}

TEST(PlaySchedule, StampsAStepOnTimeOrLeavesItToItsNemesis) {
  RecordingNemesis jumper("jumper");
  Nemeses nemeses;
  nemeses.add(jumper);
  Timeline t("test", "schedule", nullptr);
  const std::vector<ScheduledStep> steps = {at_ms(0, Move::jump, "a")};
  const Instant before = Instant::now();
  play_schedule(steps, nemeses, t, {.stamp = Stamp::on_time});
  play_schedule(steps, nemeses, t, {.stamp = Stamp::when_done});
  ASSERT_EQ(jumper.seen.size(), 2u);
  ASSERT_TRUE(jumper.seen[0].at.has_value());
  EXPECT_GE(jumper.seen[0].at->mono_ns, before.mono_ns);
  EXPECT_FALSE(jumper.seen[1].at.has_value());
}

TEST(PlaySchedule, APlantedWrongDispatchIsRefusedBeforeAnythingIsPlayed) {
  RecordingNemesis processes("process");
  Nemeses nemeses;
  nemeses.add(processes);  // no "jumper"
  Timeline t("test", "schedule", nullptr);
  const std::vector<ScheduledStep> steps = {at_ms(0, Move::freeze, "played first?"),
                                            at_ms(1, Move::jump, "to a nemesis not here")};
  EXPECT_THROW(play_schedule(steps, nemeses, t), std::logic_error);
  EXPECT_TRUE(processes.seen.empty());
  EXPECT_TRUE(t.history().empty());
}

TEST(PlaySchedule, AVerbTheNemesisDoesNotPlayFailsWhenPlayedAndStopsTheSchedule) {
  // A clock's verb dispatched to the real process nemesis, past the compile-time check: it
  // refuses the verb before it touches a process.
  Fleet fleet([](int, int) -> NodeLaunch { throw std::logic_error("no node is started"); },
              1'000'000'000);
  ProcessNemesis processes(fleet);
  RecordingNemesis jumper("jumper");
  Nemeses nemeses;
  nemeses.add(processes).add(jumper);
  Timeline t("test", "schedule", nullptr);
  ScheduledStep wrong = at_ms(0, Move::freeze, "a clock step on a process", 0);
  wrong.step.op = "step";
  const std::vector<ScheduledStep> steps = {wrong, at_ms(1, Move::jump, "after")};
  EXPECT_THROW(play_schedule(steps, nemeses, t), std::logic_error);
  EXPECT_TRUE(jumper.seen.empty());
  EXPECT_TRUE(t.history().empty());
}

TEST(Nemeses, ALackingNemesisFailsWithTheRunsReasonWhenItsTurnComes) {
  RecordingNemesis processes("process");
  Nemeses nemeses;
  nemeses.add(processes).lack("jumper", "needs the run's own jumper");
  Timeline t("test", "schedule", nullptr);
  const std::vector<ScheduledStep> steps = {at_ms(0, Move::freeze, "played"),
                                            at_ms(1, Move::jump, "lacking")};
  try {
    play_schedule(steps, nemeses, t);
    ADD_FAILURE() << "no error";
  } catch (const std::logic_error& e) {
    ADD_FAILURE() << "a logic error: " << e.what();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "move needs the run's own jumper");
  }
  EXPECT_EQ(processes.seen.size(), 1u);
}

TEST(Nemeses, HoldsOneNemesisPerKind) {
  RecordingNemesis a("process");
  RecordingNemesis b("process");
  Nemeses nemeses;
  nemeses.add(a);
  EXPECT_THROW(nemeses.add(b), std::logic_error);
  EXPECT_THROW(nemeses.lack("process", "why"), std::logic_error);
  EXPECT_TRUE(nemeses.knows("process"));
  EXPECT_FALSE(nemeses.knows("jumper"));
}

// ProcessNemesis::kRepertoire is checked against the process nemesis itself, on a sleeping
// shell node.
TEST(ProcessRepertoire, TheProcessNemesisPlaysEachVerbItNames) {
  const plumbing::TempDir dir("idbench-schedule-test");
  Fleet fleet(
      [path = dir.path()](int node, int incarnation) {
        return NodeLaunch{{"/bin/sh", "-c", "echo ready; exec sleep 60"},
                          std::nullopt,
                          path + "/node-" + std::to_string(node) + "." +
                              std::to_string(incarnation) + ".err"};
      },
      10'000'000'000);
  ProcessNemesis processes(fleet);
  EXPECT_EQ(processes.kind(), ProcessNemesis::kRepertoire.nemesis);
  Timeline t("test", "schedule", nullptr);
  for (const std::string_view verb : {"start", "pause", "resume", "kill"}) {
    ASSERT_TRUE(ProcessNemesis::kRepertoire.plays(verb)) << verb;
    EXPECT_NO_THROW(processes.invoke({.op = verb, .node = 0, .kind = "k", .what = "w"}, t)) << verb;
  }
  EXPECT_EQ(ProcessNemesis::kVerbs.size(), 4u);  // no verb it has not been seen to play
  EXPECT_FALSE(ProcessNemesis::kRepertoire.plays("step"));
}

}  // namespace
}  // namespace idbench::fault
