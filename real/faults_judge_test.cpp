// faults_judge_test.cpp — the fault figures and verdicts on planted records: each defect a
// scenario must catch (a duplicate, a failed request, a fault that did not reach the server)
// is planted here and seen to fail the verdict; no servers are started.
#include "real/faults_judge.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>

#include "plumbing/raw_time.hpp"
#include "real/faults.hpp"

namespace idbench::real {
namespace {

constexpr std::int64_t kStart = 1'800'000'000'000'000'000;  // true ns
constexpr std::int64_t kMs = 1'000'000;

// IDs 1, 2, 3, ... one per ms from the start, alternating clients 0 and 1; server by parity.
FaultRecords counting(std::uint64_t n, int servers = 1) {
  FaultRecords r;
  r.servers = servers;
  r.start_true_ns = kStart;
  r.start_mono_ns = 0;
  for (std::uint64_t i = 1; i <= n; ++i) {
    const auto t = static_cast<std::int64_t>(i) * kMs;
    const auto server = static_cast<std::uint16_t>(servers == 2 ? (i % 2 == 1 ? 0 : 1) : 0);
    r.ids.push_back({Id::from_u64(i), kStart + t, t, static_cast<std::uint16_t>(i % 2), server});
  }
  r.requests = n;
  r.stop_mono_ns = static_cast<std::int64_t>(n + 1) * kMs;
  return r;
}

void add_id(FaultRecords& r, std::uint64_t id, std::int64_t at_ms, std::uint16_t server = 0) {
  r.ids.push_back({Id::from_u64(id), kStart + at_ms * kMs, at_ms * kMs, 0, server});
  ++r.requests;
  r.stop_mono_ns = std::max(r.stop_mono_ns, (at_ms + 1) * kMs);
}

FaultPart part(FaultRecords r, IdWidth width = IdWidth::bits64, IdTime t = IdTime::none) {
  FaultPart p;
  p.system = "test";
  p.width = width;
  p.id_time = t;
  p.records = std::move(r);
  p.figures = analyse_faults(p.records, p.width, p.id_time);
  return p;
}

TEST(FaultAnalysis, CountsEveryIdAndFindsNoDuplicateInACleanRun) {
  const FaultPart p = part(counting(1000));
  EXPECT_EQ(p.figures.ids, 1000u);
  EXPECT_EQ(p.figures.duplicates, 0u);
  EXPECT_EQ(p.figures.regressions, 0u);
  EXPECT_EQ(p.figures.order_violations, 0u);
  EXPECT_DOUBLE_EQ(p.figures.availability, 1.0);
  ASSERT_EQ(p.figures.timeline.size(), 11u);  // 1001 ms in 100 ms buckets
  EXPECT_EQ(p.figures.timeline[0].ids[0], 99u);
}

TEST(FaultAnalysis, ARestoredCounterIssuesDuplicatesThatAreCaughtAndPlaced) {
  FaultRecords r = counting(100);
  for (std::uint64_t v = 51; v <= 60; ++v) add_id(r, v, 200 + static_cast<std::int64_t>(v));
  const FaultPart p = part(std::move(r));
  EXPECT_EQ(p.figures.duplicates, 10u);
  EXPECT_EQ(p.figures.duplicated_values, 10u);
  EXPECT_EQ(p.figures.regressions, 10u);
  ASSERT_FALSE(p.figures.duplicate_examples.empty());
  EXPECT_NE(p.figures.duplicate_examples[0].find("51 x2"), std::string::npos);
}

TEST(FaultAnalysis, TheLongestGapAndTheServersDriftAreMeasured) {
  FaultRecords r = counting(10, 2);  // 1..10 alternating servers, 1 ms apart
  add_id(r, 11, 500);                // server 0 alone for a while: 490 ms silence
  add_id(r, 13, 501);
  add_id(r, 15, 502);
  add_id(r, 12, 503, 1);  // server 1 back, behind server 0
  const FaultPart p = part(std::move(r));
  EXPECT_NEAR(p.figures.longest_gap_ms, 490, 1e-6);
  EXPECT_EQ(p.figures.max_server_lag, 5u);         // server 0 at 15, server 1 still at 10
  EXPECT_EQ(p.figures.regressions, 1u);            // 12 after 15
  EXPECT_NEAR(p.figures.ksort_bound_ms, 2, 1e-6);  // 13 (501 ms) before 12 (503 ms)
}

TEST(FaultJudge, TicketRestoreFailsOnDuplicates) {
  FaultRecords r = counting(100);
  for (std::uint64_t v = 51; v <= 60; ++v) add_id(r, v, 200 + static_cast<std::int64_t>(v));
  const FaultPart p = part(std::move(r));
  const fault::Verdict v = judge_ticket_restore(p, kStart + 50 * kMs, kStart + 200 * kMs);
  EXPECT_EQ(fault::name_of(v.outcome), "DUPLICATES");
  EXPECT_FALSE(v.passed());
  EXPECT_NE(v.evidence.find("duplicates issued: 10"), std::string::npos) << v.evidence;
}

TEST(FaultJudge, TicketRestoreWithoutIdsAfterTheRestoreIsNoEvidence) {
  const FaultPart p = part(counting(100));
  const fault::Verdict v = judge_ticket_restore(p, kStart + 50 * kMs, kStart + 200 * kMs);
  EXPECT_EQ(fault::name_of(v.outcome), "no evidence");
  EXPECT_FALSE(v.passed());
}

TEST(FaultJudge, ServerDownPassesOnlyWhenEveryRequestIsServed) {
  FaultRecords r = counting(100, 2);
  for (std::int64_t i = 0; i < 20; ++i) add_id(r, 101 + 2 * static_cast<std::uint64_t>(i), 200 + i);
  FaultPart p = part(r);
  const fault::Verdict kept = judge_ticket_server_down(p, kStart + 150 * kMs, kStart + 300 * kMs);
  EXPECT_EQ(fault::name_of(kept.outcome), "available") << kept.evidence;
  EXPECT_TRUE(kept.passed());

  r.failures.push_back({kStart + 210 * kMs, 210 * kMs, 0, "lost connection"});
  ++r.requests;
  p = part(r);
  const fault::Verdict failed = judge_ticket_server_down(p, kStart + 150 * kMs, kStart + 300 * kMs);
  EXPECT_EQ(fault::name_of(failed.outcome), "unavailable");
  EXPECT_FALSE(failed.passed());
}

TEST(FaultJudge, ServerDownWithARepeatedIdIsDuplicatesNotAvailable) {
  FaultRecords r = counting(100, 2);
  for (std::int64_t i = 0; i < 20; ++i) add_id(r, 101 + 2 * static_cast<std::uint64_t>(i), 200 + i);
  add_id(r, 121, 400);  // server 0, after server 1 is back: an ID it handed out before
  const fault::Verdict v =
      judge_ticket_server_down(part(std::move(r)), kStart + 150 * kMs, kStart + 300 * kMs);
  EXPECT_EQ(fault::name_of(v.outcome), "DUPLICATES") << v.evidence;
  EXPECT_FALSE(v.passed());
  EXPECT_NE(v.evidence.find("duplicates issued: 1 (1 values)"), std::string::npos) << v.evidence;
}

TEST(FaultJudge, AKilledServerThatStillAnswersIsFaultNotApplied) {
  FaultRecords r = counting(100, 2);
  add_id(r, 102, 250, 1);  // server 1 answered while it was supposedly dead
  const FaultPart p = part(std::move(r));
  const fault::Verdict v = judge_ticket_server_down(p, kStart + 150 * kMs, kStart + 300 * kMs);
  EXPECT_EQ(fault::name_of(v.outcome), "fault not applied");
  EXPECT_FALSE(v.passed());
}

TEST(FaultJudge, AClockStepTheServerNeverSawIsFaultNotApplied) {
  FaultRecords r = counting(100);
  r.probes = {{kStart, 0.3}, {kStart + 60 * kMs, 0.2}};  // no step in the server's clock
  const FaultPart p = part(std::move(r));
  const fault::Verdict v = judge_uuid_clock_back(p, kStart + 50 * kMs, 5.0);
  EXPECT_EQ(fault::name_of(v.outcome), "fault not applied");
  EXPECT_FALSE(v.passed());

  FaultRecords stepped = counting(100);
  stepped.probes = {{kStart, 0.3}, {kStart + 60 * kMs, -4999.0}};
  const fault::Verdict kept =
      judge_uuid_clock_back(part(std::move(stepped)), kStart + 50 * kMs, 5.0);
  EXPECT_EQ(fault::name_of(kept.outcome), "kept") << kept.evidence;
  EXPECT_TRUE(kept.passed());
  // IDs with no time in them: the evidence says only their uniqueness and order were judged.
  EXPECT_NE(kept.evidence.find("the IDs carry no time that could show the step"), std::string::npos)
      << kept.evidence;
}

// `n` UUID v1 IDs, one per ms from the start; those from `step_ms` on carry a time `skew_ms`
// off their true time (the others their true time).
FaultRecords uuid_v1_ids(std::int64_t n, std::int64_t step_ms, std::int64_t skew_ms) {
  FaultRecords r;
  r.start_true_ns = kStart;
  for (std::int64_t i = 1; i <= n; ++i) {
    const std::int64_t unix_ms = (kStart + i * kMs) / kMs + (i >= step_ms ? skew_ms : 0);
    const auto t = static_cast<std::uint64_t>(unix_ms * 10'000 + 0x01B21DD213814000);
    const std::uint64_t hi =
        ((t & 0xffffffffu) << 32) | (((t >> 32) & 0xffffu) << 16) | 0x1000u | (t >> 48);
    r.ids.push_back({Id{hi, 0x8000000000000000u + static_cast<std::uint64_t>(i)}, kStart + i * kMs,
                     i * kMs, 0, 0});
  }
  r.requests = static_cast<std::uint64_t>(n);
  r.stop_mono_ns = (n + 1) * kMs;
  return r;
}

// uuid-clock-back on a server whose wall clock stepped (the probe) while UUID()'s time did not
// (MariaDB's monotonic UUID clock): kept, and the evidence says the IDs' time did not follow,
// never a bare "no duplicates"; the probes' pids say whether one server process served.
TEST(FaultJudge, AUuidTimeThatDidNotFollowTheSteppedWallClockIsKeptAndSaysSo) {
  FaultRecords r = uuid_v1_ids(600, 50, 0);
  r.probes = {{kStart, 0.3, 42}, {kStart + 300 * kMs, -4999.0, 42}};
  const fault::Verdict v = judge_uuid_clock_back(part(std::move(r), IdWidth::bits128, IdTime::uuid),
                                                 kStart + 50 * kMs, 5.0);
  EXPECT_EQ(fault::name_of(v.outcome), "kept") << v.evidence;
  EXPECT_NE(v.evidence.find("the IDs' time did not follow the wall clock: it advances with a "
                            "monotonic clock since start-up"),
            std::string::npos)
      << v.evidence;
  EXPECT_NE(std::find(v.findings.begin(), v.findings.end(),
                      "one server process throughout, never restarted: pid 42 at all 2 probes"),
            v.findings.end());

  FaultRecords followed = uuid_v1_ids(600, 50, -5000);
  followed.probes = {{kStart, 0.3, 42}, {kStart + 300 * kMs, -4999.0, 43}};
  const fault::Verdict f = judge_uuid_clock_back(
      part(std::move(followed), IdWidth::bits128, IdTime::uuid), kStart + 50 * kMs, 5.0);
  EXPECT_NE(f.evidence.find("the IDs' time followed the stepped wall clock"), std::string::npos)
      << f.evidence;
  EXPECT_NE(std::find(f.findings.begin(), f.findings.end(),
                      "the server process changed between the probes: pids 42, 43"),
            f.findings.end());
}

TEST(FaultJudge, ARestartBehindWithRepeatedValuesFails) {
  FaultRecords r = counting(100);
  r.probes = {{kStart + 150 * kMs, -3000.0}};
  for (std::uint64_t v = 1; v <= 5; ++v) add_id(r, v, 200 + static_cast<std::int64_t>(v));
  const fault::Verdict v = judge_restart_behind(part(std::move(r)), kStart + 150 * kMs, 3.0);
  EXPECT_EQ(fault::name_of(v.outcome), "DUPLICATES");
  EXPECT_FALSE(v.passed());
}

TEST(FaultJudge, TheRunFailsWhenAnyPartFails) {
  FaultRun run;
  FaultPart good, bad;
  good.system = "a";
  good.verdict = {fault::Outcome::kept, "fine", {}};
  bad.system = "b";
  bad.verdict = {fault::Outcome::duplicates, "duplicates issued: 3", {}};
  run.parts = {good, bad};
  const fault::Verdict v = overall_verdict(run);
  EXPECT_EQ(fault::name_of(v.outcome), "DUPLICATES");
  EXPECT_FALSE(v.passed());
  EXPECT_NE(v.evidence.find("b: duplicates issued: 3"), std::string::npos);
}

// A part names what its system stands for (scheme, in-process counterpart, server), so the report
// can place a system that ran under faults only, never benched, in its scheme's row.
TEST(FaultJson, APartCarriesItsSystemsSchemeAndServer) {
  FaultRun run{"uuid-clock-back", "", {}, {}};
  run.parts.push_back(part(counting(10)));
  run.parts.back().system = "mariadb-uuid";
  run.parts.push_back(part(counting(10)));
  run.parts.back().system = "postgres-sequence";
  const auto j = to_json(run);
  const auto& parts = j.at("parts");
  ASSERT_EQ(parts.size(), 2U);
  EXPECT_EQ(parts[0].value("scheme", ""), "UUIDv1");
  EXPECT_EQ(parts[0].value("server_kind", ""), "mariadb");
  EXPECT_EQ(parts[1].value("scheme", ""), "SEQUENCE");
  EXPECT_EQ(parts[1].value("lower_bound_variant", ""), "auto-increment");
  EXPECT_EQ(parts[1].value("server_kind", ""), "postgres");
}

// A server whose clock is 1 s behind true time and whose first answer takes 1.5 s, as a server
// busy when the probe asks: a probe that took its interval's midpoint for the instant the
// server read its clock put it at about −250 ms, and judged a 1 s step "fault not applied".
class SlowFirstAnswer : public Server {
 public:
  ServerKind kind() const override { return ServerKind::postgres; }
  const std::string& socket() const override { return socket_; }
  std::string describe() override { return "slow first answer"; }
  std::string query(const std::string&) override { return ""; }
  double clock_unix_s() override {
    if (calls_++ == 0) ::usleep(1'500'000);
    return static_cast<double>(plumbing::true_ns()) / 1e9 - 1.0;
  }
  std::string log_tail(std::size_t) const override { return ""; }
  bool running() const override { return true; }
  int pid() const override { return 42; }
  void start() override {}
  void stop() override {}
  void kill9() override {}
  std::string snapshot() override { return ""; }
  void restore(const std::string&) override {}
  int calls() const { return calls_; }

 private:
  std::string socket_;
  int calls_ = 0;
};

TEST(ClockProbe, AProbeTheServerAnsweredSlowlyIsTakenAgain) {
  SlowFirstAnswer server;
  const ClockProbe c = probe_clock(server);
  EXPECT_NEAR(c.server_minus_true_ms, -1000, 50);
  EXPECT_GE(server.calls(), 2);
  EXPECT_EQ(c.server_pid, 42);
}

}  // namespace
}  // namespace idbench::real
