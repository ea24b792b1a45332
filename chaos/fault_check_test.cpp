// Fault verification on hand-made records: a program that reads the raw clock is caught as
// "fault not applied", one that follows the faked clock passes, with batches, refusals, stalls
// and the probe.
#include "chaos/fault_check.hpp"

#include <gtest/gtest.h>

#include <functional>

#include "chaos/analysis.hpp"
#include "chaos/judge.hpp"
#include "chaos/scenario.hpp"

namespace idbench::chaos {
namespace {

constexpr std::int64_t kMs = 1'000'000;
constexpr std::int64_t kStart = 1'700'000'000'000 * kMs;
const Layout kTwitter = Layout::parse("twitter", 1'700'000'000'000);

// One node, one thread, a step back of 200 ms at 400 ms, a run of 1 s.
RunFacts step_back_facts(std::uint64_t batch = 1) {
  RunFacts f;
  f.start_true_ns = kStart;
  f.stop_true_ns = kStart + 1000 * kMs;
  f.id_time = IdTime::layout;
  f.layout = kTwitter;
  f.ids_per_request = batch;
  NodeFacts n;
  n.incarnations = {{1, kStart, kStart + 1000 * kMs, false}};
  n.clock_writes = {{kStart + 400 * kMs, kStart + 400 * kMs + 50'000}};
  f.nodes = {n};
  f.events = {{kStart + 400 * kMs, kAllNodes, "NTP steps back 200 ms", "step", -200, {}}};
  return f;
}

Record id_at(std::int64_t true_ns, std::int64_t emb_ns, std::uint64_t seq) {
  Record r;
  r.lo = kTwitter.encode({kTwitter.tick_of_unix_ms(emb_ns / kMs), 0, seq % 4096});
  r.true_ns = true_ns;
  r.call_us = 5;
  r.kind = static_cast<std::uint16_t>(RecordKind::id);
  return r;
}

// One ID every 0.1 ms of true time; `clock(t)` is the time the program read at request
// time, and every `batch` IDs come from one request.
RunRecords issue(const std::function<std::int64_t(std::int64_t)>& clock, std::uint64_t batch) {
  std::vector<Record> recs;
  std::int64_t read = 0;
  for (std::uint64_t i = 0; i < 10'000; ++i) {
    const std::int64_t t = kStart + static_cast<std::int64_t>(i) * 100'000;
    if (i % batch == 0) read = clock(t);
    recs.push_back(id_at(t, read, i));
  }
  RunRecords r;
  r.nodes = {{IncarnationRecords{{recs}, {-1}, {}, {}}}};
  return r;
}

JudgeSetup setup() {
  JudgeSetup s;
  s.nodes = 1;
  s.start_true_ns = kStart;
  return s;
}

std::int64_t faked(std::int64_t t) { return t >= kStart + 400 * kMs ? t - 200 * kMs : t; }
std::int64_t raw(std::int64_t t) { return t; }

TEST(FaultCheck, AProgramReadingTheRawClockIsFaultNotApplied) {
  const RunFacts f = step_back_facts();
  const FaultCheck c = check_faults(f, issue(raw, 1));
  ASSERT_EQ(c.faults.size(), 1u);
  EXPECT_EQ(c.faults[0].outcome, FaultOutcome::not_applied);
  EXPECT_NEAR(*c.faults[0].observed_ms, 0, 1);
  EXPECT_EQ(c.method, kIdTimesMethod);

  const Analysis a = analyse(f, issue(raw, 1));
  const fault::Verdict v = judge(a, setup());
  EXPECT_FALSE(v.passed());  // never "kept"
  EXPECT_FALSE(fault_gaps(a.fault_check, kStart).empty());
  EXPECT_TRUE(v.evidence.starts_with("fault not applied: node 0 at +0.40 s")) << v.evidence;
}

TEST(FaultCheck, AProgramFollowingTheFakedClockPasses) {
  const RunFacts f = step_back_facts();
  const FaultCheck c = check_faults(f, issue(faked, 1));
  ASSERT_EQ(c.faults.size(), 1u);
  EXPECT_EQ(c.faults[0].outcome, FaultOutcome::applied);
  EXPECT_NEAR(*c.faults[0].observed_ms, -200, 1);
  const fault::Verdict v = judge(analyse(f, issue(faked, 1)), setup());
  EXPECT_TRUE(v.passed()) << v.evidence;
}

TEST(FaultCheck, BatchesOfStaleIdsNeitherHideNorFakeTheFault) {
  // 1000 IDs a request: each batch is handed out over 100 ms, its IDs ageing all the while.
  for (const std::uint64_t batch : {100u, 1000u}) {
    const RunFacts f = step_back_facts(batch);
    EXPECT_EQ(check_faults(f, issue(faked, batch)).faults[0].outcome, FaultOutcome::applied)
        << batch;
    EXPECT_EQ(check_faults(f, issue(raw, batch)).faults[0].outcome, FaultOutcome::not_applied)
        << batch;
  }
}

TEST(FaultCheck, AHighWaterMarkThatStopsTheEmbeddedTimeShowsTheFault) {
  // Python's uuid1 style: after the step, keep issuing just after the last time seen.
  std::int64_t last = 0;
  const auto hold = [&last](std::int64_t t) {
    last = std::max(last + 100, faked(t));
    return last;
  };
  EXPECT_EQ(check_faults(step_back_facts(), issue(hold, 1)).faults[0].outcome,
            FaultOutcome::applied);
}

TEST(FaultCheck, RefusalsOrABlockedCallShowAStepBack) {
  const RunFacts f = step_back_facts();
  RunRecords refused = issue(raw, 1);
  auto& recs = refused.nodes[0][0].threads[0];
  for (Record& r : recs) {
    if (r.true_ns > kStart + 400 * kMs) {
      r.kind = static_cast<std::uint16_t>(RecordKind::refusal);
      r.detail = static_cast<std::uint16_t>(RefusalKind::clock_moved_backwards);
    }
  }
  const FaultCheck c = check_faults(f, refused);
  EXPECT_EQ(c.faults[0].outcome, FaultOutcome::applied);
  EXPECT_EQ(c.faults[0].how, "refused");

  // Refused for 100 ms, then ahead of the clock (a restart resuming after a persisted mark):
  // the refusals are the evidence.
  RunRecords ahead = issue(raw, 1);
  for (Record& r : ahead.nodes[0][0].threads[0]) {
    if (r.true_ns > kStart + 400 * kMs && r.true_ns < kStart + 500 * kMs) {
      r.kind = static_cast<std::uint16_t>(RecordKind::refusal);
      r.detail = static_cast<std::uint16_t>(RefusalKind::borrow_limit_exceeded);
    }
  }
  EXPECT_EQ(check_faults(f, ahead).faults[0].how, "refused");
  EXPECT_EQ(check_faults(f, ahead).faults[0].outcome, FaultOutcome::applied);

  RunRecords stalled = issue(raw, 1);
  auto& s = stalled.nodes[0][0].threads[0];
  std::erase_if(s, [](const Record& r) { return r.true_ns > kStart + 390 * kMs; });
  stalled.nodes[0][0].stuck_since_true_ns = {kStart + 395 * kMs};
  const FaultCheck st = check_faults(f, stalled);
  EXPECT_EQ(st.faults[0].outcome, FaultOutcome::applied);
  EXPECT_EQ(st.faults[0].how, "stalled");
}

TEST(FaultCheck, NoIdsAfterTheFaultIsNotVerifiedAndFails) {
  const RunFacts f = step_back_facts();
  RunRecords r = issue(raw, 1);
  std::erase_if(r.nodes[0][0].threads[0],
                [](const Record& x) { return x.true_ns > kStart + 390 * kMs; });
  const FaultCheck c = check_faults(f, r);
  EXPECT_EQ(c.faults[0].outcome, FaultOutcome::unverified);
  const fault::Verdict v = judge(analyse(f, r), setup());
  EXPECT_FALSE(v.passed());
}

TEST(FaultCheck, ARateChangeAndTheClockBase) {
  RunFacts f = step_back_facts();
  f.nodes[0].clock_offset_ns = -3'000 * kMs;  // starts 3 s behind
  f.events = {{kStart + 200 * kMs, kAllNodes, "slew ×0.9", "set_rate", {}, 0.9},
              {kStart + 800 * kMs, kAllNodes, "slew over", "set_rate", {}, 1.0}};
  f.nodes[0].clock_writes = {{kStart + 200 * kMs, kStart + 200 * kMs},
                             {kStart + 800 * kMs, kStart + 800 * kMs}};
  const auto slewed = [](std::int64_t t) {
    const std::int64_t base = t - 3'000 * kMs;
    if (t < kStart + 200 * kMs) return base;
    const std::int64_t slowed = std::min(t, kStart + 800 * kMs) - (kStart + 200 * kMs);
    return base - slowed / 10;
  };
  const FaultCheck ok = check_faults(f, issue(slewed, 1));
  ASSERT_EQ(ok.faults.size(), 2u);  // base and ×0.9; the return to ×1 only ends the window
  EXPECT_EQ(ok.faults[0].kind, "base");
  EXPECT_EQ(ok.faults[0].outcome, FaultOutcome::applied);
  EXPECT_EQ(ok.faults[1].outcome, FaultOutcome::applied);
  EXPECT_NEAR(*ok.faults[1].observed_ms, -60, 2);
  const FaultCheck bad = check_faults(f, issue(raw, 1));
  EXPECT_EQ(bad.faults[0].outcome, FaultOutcome::not_applied);
  EXPECT_EQ(bad.faults[1].outcome, FaultOutcome::not_applied);
}

TEST(FaultCheck, IdsWithoutTimeAreJudgedByTheProbeAndSaySo) {
  RunFacts f = step_back_facts();
  f.id_time = IdTime::none;
  f.layout.reset();
  RunRecords r = issue(raw, 1);
  for (std::int64_t t = kStart; t < kStart + 1000 * kMs; t += kMs) {
    r.nodes[0][0].probe.push_back({t, faked(t)});
  }
  FaultCheck c = check_faults(f, r);
  EXPECT_EQ(c.method, kProbeMethod);
  EXPECT_EQ(c.faults[0].outcome, FaultOutcome::applied);
  EXPECT_EQ(c.faults[0].how, "probe");
  // UUIDs described as carrying time whose version carries none (v4): the probe too.
  f.id_time = IdTime::uuid;
  f.width = IdWidth::bits128;
  c = check_faults(f, r);
  EXPECT_EQ(c.method, kProbeMethod);
  EXPECT_EQ(c.faults[0].outcome, FaultOutcome::applied);
  for (auto& p : r.nodes[0][0].probe) p.fake_ns = p.true_ns;
  c = check_faults(f, r);
  EXPECT_EQ(c.faults[0].outcome, FaultOutcome::not_applied);
}

TEST(FaultCheck, CoarseEmbeddedTimesNeedAFaultOfTwoUnitsAndAWindowOfOne) {
  RunFacts f = step_back_facts();
  f.id_time_resolution_ms = 1000;  // a KSUID's seconds
  EXPECT_EQ(check_faults(f, issue(faked, 1)).faults[0].outcome, FaultOutcome::below_resolution);
  f.events[0].step_ms = -300;
  f.id_time_resolution_ms = 100;
  const auto coarse = [](std::int64_t t) {
    const std::int64_t fake = t >= kStart + 400 * kMs ? t - 300 * kMs : t;
    return fake - fake % (100 * kMs);
  };
  EXPECT_EQ(check_faults(f, issue(coarse, 1)).faults[0].outcome, FaultOutcome::applied);
  const auto coarse_raw = [](std::int64_t t) { return t - t % (100 * kMs); };
  EXPECT_EQ(check_faults(f, issue(coarse_raw, 1)).faults[0].outcome, FaultOutcome::not_applied);
}

// A program reads a clock of its own: the node's probe proves only that the fault reached its
// environment. When its IDs carry no time, nothing shows a fault reached it.
TEST(FaultCheck, AProgramsIdsWithoutTimeAreNotVerifiedWhateverItsEnvironmentShows) {
  RunFacts f = step_back_facts();
  f.program = true;
  f.id_time = IdTime::none;
  f.layout.reset();
  RunRecords r = issue(raw, 1);
  for (std::int64_t t = kStart; t < kStart + 1000 * kMs; t += kMs) {
    r.nodes[0][0].probe.push_back({t, faked(t)});
  }
  for (const IdTime id_time : {IdTime::none, IdTime::uuid}) {  // uuid: v4, no time in it
    f.id_time = id_time;
    f.width = id_time == IdTime::none ? IdWidth::bits64 : IdWidth::bits128;
    const FaultCheck c = check_faults(f, r);
    EXPECT_EQ(c.method, kNoTimeMethod);
    EXPECT_EQ(c.unverifiable, kNoTime);
    ASSERT_EQ(c.faults.size(), 1u);
    EXPECT_EQ(c.faults[0].outcome, FaultOutcome::unverified);
    EXPECT_EQ(c.faults[0].how, kNoTime);
    const fault::Verdict v = judge(analyse(f, r), setup());
    EXPECT_FALSE(v.passed());
    EXPECT_EQ(v.evidence, "not verified: the IDs carry no time");
  }
}

// A fault finer than the IDs' time is reported, not judged, where the IDs show the node's clock
// is the faked one; for a program only a larger fault its IDs resolved shows that.
TEST(FaultCheck, AProgramsFaultBelowResolutionCountsOnlyBesideALargerOneShown) {
  RunFacts f = step_back_facts();
  f.id_time_resolution_ms = 100;
  f.events[0].step_ms = -150;  // below 2 units
  f.events.push_back({kStart + 700 * kMs, kAllNodes, "NTP steps back 500 ms", "step", -500, {}});
  f.nodes[0].clock_writes.push_back({kStart + 700 * kMs, kStart + 700 * kMs + 50'000});
  const auto coarse = [](std::int64_t faked_ns) { return faked_ns - faked_ns % (100 * kMs); };
  const auto follows = [&](std::int64_t t) {
    return coarse(t - (t >= kStart + 400 * kMs ? 150 * kMs : 0) -
                  (t >= kStart + 700 * kMs ? 500 * kMs : 0));
  };
  const auto ignores = [&](std::int64_t t) { return coarse(t); };
  for (const bool program : {false, true}) {
    f.program = program;
    FaultCheck c = check_faults(f, issue(follows, 1));
    ASSERT_EQ(c.faults.size(), 2u);
    EXPECT_EQ(c.faults[0].outcome, FaultOutcome::below_resolution);
    EXPECT_EQ(c.faults[1].outcome, FaultOutcome::applied);
    c = check_faults(f, issue(ignores, 1));
    EXPECT_EQ(c.faults[1].outcome, FaultOutcome::not_applied);
    EXPECT_EQ(c.faults[0].outcome,
              program ? FaultOutcome::unverified : FaultOutcome::below_resolution);
  }
  // Nothing but faults below resolution: a program is not verified.
  f.events.pop_back();
  f.nodes[0].clock_writes.pop_back();
  f.program = true;
  const FaultCheck c = check_faults(f, issue(follows, 1));
  ASSERT_EQ(c.faults.size(), 1u);
  EXPECT_EQ(c.faults[0].outcome, FaultOutcome::unverified);
  EXPECT_FALSE(judge(analyse(f, issue(follows, 1)), setup()).passed());
}

}  // namespace
}  // namespace idbench::chaos
