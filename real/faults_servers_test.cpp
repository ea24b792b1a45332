// faults_servers_test.cpp — the kill -9 scenarios on real PostgreSQL and Redis servers, at half
// speed (skipped when the server is not installed):
//   * redis-kill9 under RDB only: the planted loss — the restarted server counts from its last
//     snapshot (none), so every value is handed out again — must be caught as DUPLICATES;
//     under appendfsync always (the AOF fsynced before the reply) the verdict is kept, with
//     IDs on both sides of the crash;
//   * postgres-kill9 on a CACHE 1 sequence with synchronous_commit on: kept, with IDs on both
//     sides, and the values recovery skipped counted;
//   * redis-replica-promotion: the master killed, its replica (synced over a loopback port)
//     promoted, the clients handed over to it: IDs on both sides, and the replica's lag stated;
//   * postgres-standby-promotion: the primary killed, its streaming standby (made by
//     pg_basebackup -R over the primary's socket) promoted, the clients moved to it: IDs on both
//     sides, no failed request, the standby's replayed WAL stated;
//   * postgres-restore: the planted defect is the restore itself — a sequence restored from a
//     pg_basebackup taken while it served goes back, and its duplicates must be caught;
//   * postgres-clock-back under libfaketime, 1 s back from 1 client: the fault reached the
//     server (its clock and next_id()'s time followed the step), and the arithmetic's
//     prediction of Instagram's duplicates equals the duplicates measured (from 1 client the
//     order of the replies is that of nextval()).
#include <fmt/format.h>
#include <gtest/gtest.h>

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

TEST(FaultsOnServers, ARedisReplicaPromotedAfterTheMasterIsKilledServesAndStatesItsLag) {
  if (plumbing::find_program("redis-server").empty()) GTEST_SKIP() << "no redis-server";
  FaultOptions o = half_speed();
  o.redis_persistence = {RedisPersistence::rdb};
  const FaultRun run = run_fault_scenario("redis-replica-promotion", o);
  ASSERT_EQ(run.parts.size(), 1u) << to_text(run);
  const FaultPart& p = run.parts[0];
  EXPECT_EQ(p.label, "async replica promoted, rdb");
  EXPECT_NE(p.verdict.outcome, fault::Outcome::no_evidence) << to_text(run);
  EXPECT_NE(p.verdict.outcome, fault::Outcome::machine_starved) << to_text(run);
  EXPECT_TRUE(has_finding(p, "when promoted the replica held ids = ")) << to_text(run);
  EXPECT_EQ(p.figures.failures, 0u) << to_text(run);  // the clients handed over to the replica
}

TEST(FaultsOnServers, APostgresStandbyPromotedAfterThePrimaryIsKilledServesTheClients) {
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
