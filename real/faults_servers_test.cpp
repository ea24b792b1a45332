// faults_servers_test.cpp — the kill -9 scenarios on real PostgreSQL and Redis servers, at half
// speed (skipped when the server is not installed):
//   * redis-kill9 under RDB only: the planted loss — the restarted server counts from its last
//     snapshot (none), so every value is handed out again — must be caught as DUPLICATES;
//     under appendfsync always (the AOF fsynced before the reply) the verdict is kept, with
//     IDs on both sides of the crash;
//   * postgres-kill9 on a CACHE 1 sequence with synchronous_commit on: kept, with IDs on both
//     sides, and the values recovery skipped counted;
//   * redis-kill9-disk-busy: under appendfsync everysec, a kill -9 while the AOF fsync stalls
//     loses what Redis acknowledged and had not written: DUPLICATES, as many as its AOF buffer
//     held INCRs (INFO persistence, read before the kill); under always the verdict is kept;
//   * redis-replica-promotion: the replication link cut, the master killed, its replica
//     promoted, the clients handed over to it: DUPLICATES, as many as the values the master
//     handed out beyond what the replica held (GET ids on it before the promotion);
//   * postgres-standby-promotion: the link cut, the primary killed, its streaming standby (made
//     by pg_basebackup -R through the relay) promoted, the clients moved to it: DUPLICATES, as
//     many as the primary handed out beyond the standby's sequence (its last_value), no failed
//     request, the standby's replayed WAL stated;
//   * postgres-restore: the planted defect is the restore itself — a sequence restored from a
//     pg_basebackup taken while it served goes back, and its duplicates must be caught;
//   * postgres-clock-back under libfaketime, 1 s back from 1 client: the fault reached the
//     server (its clock and next_id()'s time followed the step), and the arithmetic's
//     prediction of Instagram's duplicates equals the duplicates measured (from 1 client the
//     order of the replies is that of nextval()).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "plumbing/child_process.hpp"
#include "plumbing/postgres_cluster.hpp"
#include "real/faults.hpp"

namespace idbench::real {
namespace {

FaultOptions half_speed() {
  FaultOptions o;
  o.time_scale = 0.5;
  o.clients = 2;
  return o;
}

bool has_finding(const FaultPart& p, const std::string& text) {
  for (const std::string& f : p.verdict.findings) {
    if (f.find(text) != std::string::npos) return true;
  }
  return false;
}

// The number after `before` in the first finding holding it; -1 when none does.
long long number_after(const FaultPart& p, const std::string& before) {
  for (const std::string& f : p.verdict.findings) {
    const std::size_t at = f.find(before);
    if (at != std::string::npos) return std::stoll(f.substr(at + before.size()));
  }
  return -1;
}

// A promotion's duplicates against what the servers' own state predicts (the finding's
// "= N expected twice"): within 1 % (a reply read just after the kill may count either way).
void expect_predicted_duplicates(const FaultRun& run, const FaultPart& p) {
  EXPECT_EQ(p.verdict.outcome, fault::Outcome::duplicates) << to_text(run);
  std::string text;
  for (const std::string& f : p.verdict.findings) {
    if (f.find(" expected twice") != std::string::npos) text = f;
  }
  ASSERT_FALSE(text.empty()) << to_text(run);
  const long long predicted =
      std::stoll(text.substr(text.rfind("= ") + 2, text.find(" expected twice")));
  EXPECT_GT(predicted, 0) << to_text(run);
  const auto measured = static_cast<long long>(p.figures.duplicates);
  EXPECT_LE(std::llabs(measured - predicted), std::max(10LL, predicted / 100)) << to_text(run);
}

TEST(FaultsOnServers, RedisUnderRdbOnlyRepeatsValuesAfterAKill9AndAlwaysKeepsThem) {
  if (plumbing::find_program("redis-server").empty()) GTEST_SKIP() << "no redis-server";
  FaultOptions o = half_speed();
  o.redis_persistence = {RedisPersistence::rdb, RedisPersistence::aof_always};
  const FaultRun run = run_fault_scenario("redis-kill9", o);
  ASSERT_EQ(run.parts.size(), 2u) << to_text(run);
  const FaultPart& rdb = run.parts[0];
  EXPECT_EQ(rdb.label, "rdb");
  EXPECT_EQ(rdb.verdict.outcome, fault::Outcome::duplicates) << to_text(run);
  EXPECT_GT(rdb.figures.duplicates, 0u);
  EXPECT_NE(rdb.settings.find("appendonly=no"), std::string::npos);
  const FaultPart& always = run.parts[1];
  EXPECT_EQ(always.label, "appendfsync=always");
  EXPECT_EQ(always.verdict.outcome, fault::Outcome::kept) << to_text(run);
  EXPECT_EQ(always.figures.duplicates, 0u);
  EXPECT_FALSE(run.verdict.passed());
}

TEST(FaultsOnServers, RedisLosesWhatItsAofBufferHeldWhenKilledDuringAnFsyncStall) {
  if (plumbing::find_program("redis-server").empty()) GTEST_SKIP() << "no redis-server";
  FaultOptions o = half_speed();
  o.redis_persistence = {RedisPersistence::aof_everysec, RedisPersistence::aof_always};
  const FaultRun run = run_fault_scenario("redis-kill9-disk-busy", o);
  ASSERT_EQ(run.parts.size(), 2u) << to_text(run);
  const FaultPart& everysec = run.parts[0];
  EXPECT_EQ(everysec.label, "appendfsync=everysec, AOF fsync stalled");
  EXPECT_EQ(everysec.verdict.outcome, fault::Outcome::duplicates) << to_text(run);
  const long long buffered = number_after(everysec, "aof_pending_bio_fsync:1): about ");
  EXPECT_GT(buffered, 0) << to_text(run);
  // The buffer is read just before the kill: the few INCRs served after it add to it.
  const auto measured = static_cast<long long>(everysec.figures.duplicates);
  EXPECT_GE(measured, buffered) << to_text(run);
  EXPECT_LE(measured, buffered + buffered / 10 + 200) << to_text(run);
  const FaultPart& always = run.parts[1];
  EXPECT_EQ(always.label, "appendfsync=always, AOF fsync stalled");
  EXPECT_EQ(always.verdict.outcome, fault::Outcome::kept) << to_text(run);
  EXPECT_EQ(always.figures.duplicates, 0u);
}

TEST(FaultsOnServers, APostgresSequenceSurvivesAKill9WithSynchronousCommitOn) {
  if (plumbing::postgres_bin_dir().empty()) GTEST_SKIP() << "PostgreSQL is not installed";
  FaultOptions o = half_speed();
  o.system = "postgres-sequence";
  o.synchronous_commit = {"on"};
  const FaultRun run = run_fault_scenario("postgres-kill9", o);
  ASSERT_EQ(run.parts.size(), 1u) << to_text(run);
  const FaultPart& p = run.parts[0];
  EXPECT_EQ(p.label, "synchronous_commit=on");
  EXPECT_EQ(p.verdict.outcome, fault::Outcome::kept) << to_text(run);
  EXPECT_GT(p.figures.ids, 0u);
  EXPECT_TRUE(has_finding(p, "were never handed out")) << to_text(run);
  EXPECT_NE(p.settings.find("synchronous_commit=on, fsync=on"), std::string::npos);
}

TEST(FaultsOnServers, ARedisReplicaCutOffAndPromotedReissuesWhatItNeverReceived) {
  if (plumbing::find_program("redis-server").empty()) GTEST_SKIP() << "no redis-server";
  FaultOptions o = half_speed();
  o.redis_persistence = {RedisPersistence::rdb};
  const FaultRun run = run_fault_scenario("redis-replica-promotion", o);
  ASSERT_EQ(run.parts.size(), 1u) << to_text(run);
  const FaultPart& p = run.parts[0];
  EXPECT_EQ(p.label, "async replica promoted, rdb");
  EXPECT_NE(p.verdict.outcome, fault::Outcome::no_evidence) << to_text(run);
  EXPECT_NE(p.verdict.outcome, fault::Outcome::machine_starved) << to_text(run);
  EXPECT_TRUE(has_finding(p, "when promoted the replica (GET ids) held ")) << to_text(run);
  expect_predicted_duplicates(run, p);
  EXPECT_EQ(p.figures.failures, 0u) << to_text(run);  // the clients handed over to the replica
}

TEST(FaultsOnServers, APostgresStandbyCutOffAndPromotedReissuesWhatItNeverReceived) {
  if (plumbing::postgres_bin_dir().empty()) GTEST_SKIP() << "PostgreSQL is not installed";
  FaultOptions o = half_speed();
  o.synchronous_commit = {"on"};
  const FaultRun run = run_fault_scenario("postgres-standby-promotion", o);
  ASSERT_EQ(run.parts.size(), 1u) << to_text(run);
  const FaultPart& p = run.parts[0];
  EXPECT_EQ(p.label, "async standby promoted, synchronous_commit=on");
  EXPECT_NE(p.verdict.outcome, fault::Outcome::no_evidence) << to_text(run);
  EXPECT_NE(p.verdict.outcome, fault::Outcome::machine_starved) << to_text(run);
  EXPECT_TRUE(has_finding(p, "the standby had replayed the primary's WAL up to")) << to_text(run);
  expect_predicted_duplicates(run, p);
  EXPECT_EQ(p.figures.failures, 0u) << to_text(run);
}

TEST(FaultsOnServers, ASequenceRestoredFromABaseBackupIssuesDuplicatesAndTheVerdictFails) {
  if (plumbing::postgres_bin_dir().empty()) GTEST_SKIP() << "PostgreSQL is not installed";
  FaultOptions o = half_speed();
  o.system = "postgres-sequence";
  const FaultRun run = run_fault_scenario("postgres-restore", o);
  ASSERT_EQ(run.parts.size(), 1u) << to_text(run);
  EXPECT_EQ(run.parts[0].verdict.outcome, fault::Outcome::duplicates) << to_text(run);
  EXPECT_GT(run.parts[0].figures.duplicates, 0u);
  EXPECT_FALSE(run.verdict.passed());
}

TEST(FaultsOnServers, InstagramDuplicatesUnderAStepBackAreWhatTheArithmeticPredicts) {
  if (plumbing::postgres_bin_dir().empty()) GTEST_SKIP() << "PostgreSQL is not installed";
  FaultOptions o = half_speed();
  o.system = "postgres-instagram-next-id";
  o.clock_steps_s = {1};
  o.rate_clients = {1};
  const FaultRun run = run_fault_scenario("postgres-clock-back", o);
  ASSERT_EQ(run.parts.size(), 1u) << to_text(run);
  const FaultPart& p = run.parts[0];
  EXPECT_NE(p.verdict.outcome, fault::Outcome::fault_not_applied) << to_text(run);
  EXPECT_NE(p.verdict.outcome, fault::Outcome::no_evidence) << to_text(run);
  EXPECT_TRUE(has_finding(p, "the IDs' time followed the stepped wall clock")) << to_text(run);
  const std::string measured =
      fmt::format("): {}; measured: {}", p.figures.duplicates, p.figures.duplicates);
  EXPECT_TRUE(has_finding(p, measured)) << to_text(run);
}

}  // namespace
}  // namespace idbench::real
