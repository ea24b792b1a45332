// faults_mariadb_test.cpp — fault scenarios on real mariadbd servers, at half speed (a few
// seconds each). Skipped when MariaDB (or, for the clock, libfaketime) is not installed.
//   * ticket-restore: the planted defect is the restore itself — server 0's counter goes back,
//     and the scenario must catch the duplicates and fail;
//   * uuid-clock-back: the step is the clock nemesis's, recorded with the faked time it left;
//   * ticket-server-down: with one server killed, the other serves every request;
//   * auto-increment-kill9 with clients that cannot issue enough before the crash (a planted
//     starvation: more IDs asked than any client issues in the deadline): played again, then
//     "machine starved", never "kept".
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <utility>
#include <vector>

#include "chaos/faketime.hpp"
#include "generators/errors.hpp"
#include "plumbing/child_process.hpp"
#include "real/faults.hpp"

namespace idbench::real {
namespace {

bool mariadb_installed() { return !plumbing::find_program("mariadbd").empty(); }

bool libfaketime_installed() {
  try {
    chaos::find_libfaketime();
    return true;
  } catch (const Error&) {
    return false;
  }
}

// What a failure shows: the verdicts, evidence and counts, then each server's log tail.
std::string why(const FaultRun& run) {
  std::string out = to_text(run);
  for (const FaultPart& p : run.parts) {
    for (std::size_t i = 0; i < p.server_logs.size(); ++i) {
      out += p.system + " server " + std::to_string(i) + " log, last lines:\n" + p.server_logs[i] +
             "\n";
    }
  }
  return out;
}

FaultOptions quick() {
  FaultOptions o;
  o.time_scale = 0.5;
  o.clients = 2;
  o.system = "mariadb-ticket-pair-myisam";  // Flickr's pair, as it ran
  return o;
}

TEST(FaultsOnMariadb, ATicketServerRestoredFromACopyIssuesDuplicatesAndTheVerdictFails) {
  if (!mariadb_installed()) GTEST_SKIP() << "mariadb-server is not installed";
  const FaultRun run = run_fault_scenario("ticket-restore", quick());
  ASSERT_EQ(run.parts.size(), 1u);
  const FaultPart& p = run.parts[0];
  EXPECT_GT(p.figures.duplicates, 0u) << why(run);
  EXPECT_EQ(fault::name_of(run.verdict.outcome), "DUPLICATES") << why(run);
  EXPECT_FALSE(run.verdict.passed());
  EXPECT_NE(run.verdict.evidence.find("duplicates issued: "), std::string::npos) << why(run);
  // The snapshot and the restore are the snapshot nemesis's steps (kind "fault"); the harness
  // records what it saw after each.
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"fault", "snapshot of server 0 (a cold copy of its data directory)"},
      {"harness", "server 0 serves again after the snapshot"},
      {"fault", "server 0 stopped; its data directory restored from the copy"},
      {"harness", "server 0 started on the restored copy"}};
  std::vector<std::pair<std::string, std::string>> events;
  for (const fault::FaultRecord& e : p.records.events) events.emplace_back(e.kind, e.what);
  EXPECT_EQ(events, expected) << why(run);
}

TEST(FaultsOnMariadb, AStepBackOfTheServersClockIsTheClockNemesisStepWithItsFakedTime) {
  if (!mariadb_installed() || !libfaketime_installed()) {
    GTEST_SKIP() << "mariadb-server or libfaketime is not installed";
  }
  FaultOptions o;
  o.time_scale = 0.5;
  const FaultRun run = run_fault_scenario("uuid-clock-back", o);
  ASSERT_EQ(run.parts.size(), 2u) << why(run);
  for (const FaultPart& p : run.parts) {
    EXPECT_EQ(fault::name_of(p.verdict.outcome), "kept") << why(run);
    ASSERT_EQ(p.records.events.size(), 1u) << why(run);
    const fault::FaultRecord& step = p.records.events[0];
    EXPECT_EQ(step.kind, "fault");
    EXPECT_EQ(step.what, "the servers' wall clock stepped back 5 s");
    ASSERT_TRUE(step.faked_ns.has_value());
    EXPECT_EQ(*step.faked_ns, step.true_ns - 5'000'000'000);
  }
}

TEST(FaultsOnMariadb, WithOneTicketServerDownTheOtherServesEveryRequest) {
  if (!mariadb_installed()) GTEST_SKIP() << "mariadb-server is not installed";
  const FaultRun run = run_fault_scenario("ticket-server-down", quick());
  ASSERT_EQ(run.parts.size(), 1u);
  const FaultPart& p = run.parts[0];
  EXPECT_EQ(p.figures.failures, 0u) << why(run);
  EXPECT_EQ(p.figures.duplicates, 0u) << why(run);
  EXPECT_GT(p.figures.ids_per_server.at(0), 0u) << why(run);
  EXPECT_EQ(fault::name_of(run.verdict.outcome), "available") << why(run);
  EXPECT_TRUE(run.verdict.passed()) << why(run);
}

TEST(FaultsOnMariadb, AKill9WhoseClientsCannotIssueIsMachineStarvedNeverKept) {
  if (!mariadb_installed()) GTEST_SKIP() << "mariadb-server is not installed";
  FaultOptions o;
  o.time_scale = 0.2;
  o.flush_values = {2};
  o.lock_modes = {2};
  o.issuing_ids = 1'000'000'000;
  o.issuing_deadline_s = 0.5;
  const FaultRun run = run_fault_scenario("auto-increment-kill9", o);
  ASSERT_EQ(run.parts.size(), 1u) << why(run);
  const FaultPart& p = run.parts[0];
  EXPECT_EQ(fault::name_of(p.verdict.outcome), "machine starved") << why(run);
  EXPECT_FALSE(run.verdict.passed()) << why(run);
  EXPECT_NE(p.verdict.evidence.find("all 3 attempts starved"), std::string::npos) << why(run);
  EXPECT_NE(p.verdict.evidence.find("before the crash"), std::string::npos) << why(run);
}

}  // namespace
}  // namespace idbench::real
