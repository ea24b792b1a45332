// faults_starved_test.cpp — a fault part whose clients the machine starves is played again, and
// then reported as the machine's fault, never judged: the clients' ID counts are awaited before
// and after a fault, and play_unstarved retries, names the starvation and says each starved
// attempt as a line of the scenario's progress. Fake adapters (sh), no servers.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "plumbing/raw_time.hpp"
#include "real/faults.hpp"
#include "real/faults_clients.hpp"

namespace idbench::real {
namespace {

constexpr std::int64_t kMs = 1'000'000;

external::ExecSpec program(const std::string& script, std::int64_t timeout_ms) {
  external::ExecSpec spec;
  spec.command = "sh -c '" + script + "'";
  spec.timeout_ms = timeout_ms;
  return spec;
}

std::uint16_t server0(const Id&) { return 0; }

TEST(ClientPoolAwait, ClientsThatCannotIssueAreNotAwaitedPastTheDeadline) {
  ClientPool pool(program("while read n; do sleep 60; done", 200), 2, server0);
  const std::int64_t start = plumbing::monotonic_ns();
  EXPECT_FALSE(pool.await_ids({}, 1, start + 300 * kMs));
  EXPECT_GE(plumbing::monotonic_ns(), start + 300 * kMs);
  EXPECT_EQ(pool.ids_per_client(), (std::vector<std::uint64_t>{0, 0}));
  FaultRecords r;
  pool.stop_into(r);
  EXPECT_TRUE(r.ids.empty());
}

TEST(ClientPoolAwait, EveryClientMustIssueTheIdsAskedSinceTheMark) {
  ClientPool pool(program("i=0; while read n; do i=$((i+1)); echo $i; done", 30'000), 3, server0);
  ASSERT_TRUE(pool.await_ids({}, 5, plumbing::monotonic_ns() + 30'000 * kMs));
  const std::vector<std::uint64_t> mark = pool.ids_per_client();
  for (const std::uint64_t n : mark) EXPECT_GE(n, 5u);
  ASSERT_TRUE(pool.await_ids(mark, 20, plumbing::monotonic_ns() + 30'000 * kMs));
  const std::vector<std::uint64_t> later = pool.ids_per_client();
  for (std::size_t i = 0; i < later.size(); ++i) EXPECT_GE(later[i], mark[i] + 20) << i;
  FaultRecords r;
  pool.stop_into(r);
  EXPECT_GE(r.ids.size(), 3u * 25);
}

// A scenario's timeline that says nothing.
fault::Timeline quiet() { return {"real-chaos", "auto-increment-kill9", nullptr}; }

FaultPart shape() {
  FaultPart p;
  p.system = "mariadb-auto-increment";
  p.label = "innodb_flush_log_at_trx_commit=0";
  return p;
}

FaultPart kept() {
  FaultPart p = shape();
  p.verdict = {
      fault::Outcome::kept, "no value handed out twice: 40 IDs before the crash, 40 after", {}};
  return p;
}

TEST(PlayUnstarved, EveryAttemptStarvedIsTheMachinesFaultNeverKept) {
  int attempts = 0;
  const std::vector<FaultPart> parts = play_unstarved(
      [&]() -> std::vector<FaultPart> {
        ++attempts;
        throw MachineStarved("the clients received 0, 0 IDs before the crash within 20.0 s");
      },
      {shape()}, kStarvedRetries, quiet());
  EXPECT_EQ(attempts, 1 + kStarvedRetries);
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(fault::name_of(parts[0].verdict.outcome), "machine starved");
  EXPECT_FALSE(parts[0].verdict.passed());
  EXPECT_EQ(parts[0].label, "innodb_flush_log_at_trx_commit=0");
  EXPECT_NE(parts[0].verdict.evidence.find("all 3 attempts starved, no verdict about the system"),
            std::string::npos)
      << parts[0].verdict.evidence;
  EXPECT_EQ(parts[0].verdict.findings.size(), 3u);
}

TEST(PlayUnstarved, AStarvedAttemptIsPlayedAgainAndTheVerdictSaysItWasRetried) {
  int attempts = 0;
  const std::vector<FaultPart> parts = play_unstarved(
      [&]() -> std::vector<FaultPart> {
        if (++attempts == 1) throw MachineStarved("the clients received 0, 3 IDs before the crash");
        return {kept()};
      },
      {shape()}, kStarvedRetries, quiet());
  EXPECT_EQ(attempts, 2);
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(fault::name_of(parts[0].verdict.outcome), "kept");
  ASSERT_EQ(parts[0].verdict.findings.size(), 1u);
  EXPECT_NE(parts[0].verdict.findings[0].find("retried 1 time: the machine starved the clients "
                                              "before (the clients received 0, 3 IDs"),
            std::string::npos)
      << parts[0].verdict.findings[0];
}

TEST(PlayUnstarved, EachStarvedAttemptIsSaidInTheScenariosProgressLineFormat) {
  std::FILE* progress = std::tmpfile();
  ASSERT_NE(progress, nullptr);
  int attempts = 0;
  play_unstarved(
      [&]() -> std::vector<FaultPart> {
        if (++attempts == 1) throw MachineStarved("the clients received 0, 3 IDs before the crash");
        return {kept()};
      },
      {shape()}, kStarvedRetries, {"real-chaos", "auto-increment-kill9", progress});
  std::rewind(progress);
  std::string text;
  for (int c = std::fgetc(progress); c != EOF; c = std::fgetc(progress)) {
    text += static_cast<char>(c);
  }
  std::fclose(progress);
  EXPECT_EQ(text,
            "real-chaos auto-increment-kill9: mariadb-auto-increment "
            "innodb_flush_log_at_trx_commit=0: the clients received 0, 3 IDs before the crash "
            "(attempt 1 of 3); playing it again\n");
}

}  // namespace
}  // namespace idbench::real
