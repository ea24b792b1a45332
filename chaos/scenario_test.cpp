// scenario_test.cpp — the chaos scenario table: every scenario named, described and inside its
// run; its flags agree with its schedule; its sizes; scaling; its kinds' words in the event log;
// and each kind played by the nemesis and verb its dispatch table declares.
#include "chaos/scenario.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace idbench::chaos {
namespace {

TEST(Scenarios, TheIssuesScenariosAllExist) {
  for (const char* name :
       {"ntp-step-back", "ntp-slew", "leap-second", "leap-smear", "vm-pause",
        "restart-during-regression", "epoch-exhaustion", "worker-collision", "skew"}) {
    EXPECT_NE(find_scenario(name), nullptr) << name;
  }
  EXPECT_EQ(find_scenario("no-such"), nullptr);
}

TEST(Scenarios, EveryTimelineFitsItsRunAndIsDescribed) {
  const std::string list = describe_scenarios();
  for (const auto& s : scenarios()) {
    EXPECT_FALSE(s.summary.empty()) << s.name;
    EXPECT_GT(s.duration_ms, 0) << s.name;
    EXPECT_NE(list.find(s.name), std::string::npos) << s.name;
    for (const auto& e : s.events) {
      EXPECT_GE(e.at_ms, 0) << s.name;
      EXPECT_LT(e.at_ms, s.duration_ms) << s.name;
      EXPECT_FALSE(e.why.empty()) << s.name;
      if (e.kind == EventKind::set_rate) {
        EXPECT_GT(e.rate, 0) << s.name;
      }
    }
  }
}

TEST(Scenarios, FlagsMatchWhatTheTimelineDoes) {
  for (const auto& s : scenarios()) {
    const bool backward = std::any_of(s.events.begin(), s.events.end(), [](const Event& e) {
      return (e.kind == EventKind::step || e.kind == EventKind::resume) && e.step_ms < 0;
    });
    EXPECT_EQ(s.steps_back, backward) << s.name;
    const bool restarts = std::any_of(s.events.begin(), s.events.end(),
                                      [](const Event& e) { return e.kind == EventKind::restart; });
    EXPECT_EQ(s.restarts, restarts) << s.name;
    EXPECT_EQ(s.exhausts, s.base == ClockBase::lifetime_end_at) << s.name;
  }
}

TEST(Scenarios, NtpStepBackStepsByTheIssuesSizes) {
  std::vector<std::int64_t> steps;
  for (const auto& e : find_scenario("ntp-step-back")->events) steps.push_back(e.step_ms);
  EXPECT_EQ(steps, (std::vector<std::int64_t>{-200, -1000, -5000}));
}

TEST(Scenarios, LeapSecondStepsBackOneSecondAtMidnight) {
  const Scenario& s = *find_scenario("leap-second");
  ASSERT_EQ(s.events.size(), 1u);
  EXPECT_EQ(s.events[0].step_ms, -1000);
  EXPECT_EQ(s.events[0].at_ms, s.base_at_ms);  // the clock reads midnight exactly then
  EXPECT_EQ(s.base_unix_ms, 1'483'228'800'000);
  // ... and starts at 23:59:58.
  EXPECT_EQ(s.base_unix_ms - s.base_at_ms, 1'483'228'798'000);
}

TEST(Scaled, ScalesTimesAndSizesButNotRates) {
  const Scenario s = scaled(*find_scenario("ntp-slew"), 0.5);
  EXPECT_EQ(s.duration_ms, 1000);
  EXPECT_EQ(s.events[0].at_ms, 150);
  EXPECT_DOUBLE_EQ(s.events[0].rate, 0.95);
  const Scenario n = scaled(*find_scenario("ntp-step-back"), 0.1);
  EXPECT_EQ(n.events[2].step_ms, -500);
}

// The event log's words: fault verification (fault_check.cpp) reads step, set_rate and resume
// back by these very words, and chaos.json's timeline carries them.
TEST(Scenarios, EventKindsHaveTheEventLogsWords) {
  EXPECT_EQ(name_of(EventKind::step), "step");
  EXPECT_EQ(name_of(EventKind::set_rate), "set_rate");
  EXPECT_EQ(name_of(EventKind::stop), "stop");
  EXPECT_EQ(name_of(EventKind::resume), "resume");
  EXPECT_EQ(name_of(EventKind::kill), "kill");
  EXPECT_EQ(name_of(EventKind::restart), "restart");
}

// The dispatch table is what the driver plays: each kind to its nemesis and verb, on the
// event's own node. A clock fault is the clock nemesis's; the rest are the processes'.
TEST(Scenarios, EachKindIsPlayedByItsNemesisWithItsVerb) {
  const auto plays = [](EventKind k) {
    const fault::Dispatch<EventKind>& d = fault::dispatch_of(kEventPlays, k);
    EXPECT_EQ(d.target.aim, fault::Aim::events_node) << name_of(k);
    return std::string(d.nemesis) + " " + std::string(d.op);
  };
  EXPECT_EQ(plays(EventKind::step), "clock step");
  EXPECT_EQ(plays(EventKind::set_rate), "clock set_rate");
  EXPECT_EQ(plays(EventKind::stop), "process pause");
  EXPECT_EQ(plays(EventKind::resume), "process resume");
  EXPECT_EQ(plays(EventKind::kill), "process kill");
  EXPECT_EQ(plays(EventKind::restart), "process start");
}

TEST(Scenarios, AnEventIsScheduledWithItsInstantAmountsAndRecord) {
  const Event& resume = find_scenario("vm-pause")->events[1];
  const fault::ScheduledStep s = scheduled(resume);
  EXPECT_EQ(s.at_ns, 1500 * 1'000'000LL);
  EXPECT_EQ(s.nemesis, "process");
  EXPECT_EQ(s.step.op, "resume");
  EXPECT_EQ(s.step.node, 0);
  EXPECT_EQ(s.step.step_ns, 300 * 1'000'000LL);  // the clock's catch-up, moved by the hook
  EXPECT_EQ(s.step.kind, "resume");
  EXPECT_EQ(s.step.what, resume.why);
  EXPECT_FALSE(s.step.at.has_value());  // stamped when played
  const fault::ScheduledStep slew = scheduled(find_scenario("leap-smear")->events[0]);
  EXPECT_EQ(slew.step.node, kAllNodes);
  EXPECT_DOUBLE_EQ(slew.step.rate, 0.5);
}

}  // namespace
}  // namespace idbench::chaos
