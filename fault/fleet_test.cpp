// fleet_test.cpp — the fleet on tiny shell nodes: a node that never says ready is named, one
// that ends early is caught while the run waits, a restart is the next incarnation, a stop
// sees a failed node, and a killed or abandoned node leaves no process.
#include "fault/fleet.hpp"

#include <gtest/gtest.h>
#include <signal.h>

#include <cerrno>
#include <string>

#include "fault/testing/shell_nodes.hpp"
#include "plumbing/temp_dir.hpp"

namespace idbench::fault {
namespace {

constexpr std::int64_t kSecond = 1'000'000'000;

// Nodes running a script under /bin/sh ($1, $2: the node's index and incarnation).
constexpr auto shell = fault_testing::shell_nodes;

// True while a process with this pid exists (a zombie counts: it has not been reaped).
bool exists(pid_t pid) { return ::kill(pid, 0) == 0 || errno != ESRCH; }

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Fleet, ANodeThatNeverSaysReadyIsNamedWithItsLastWords) {
  plumbing::TempDir dir("idbench-fleet-test");
  Fleet fleet(shell(dir, "echo 'cannot reach the coordinator' >&2; sleep 30"), kSecond / 4);
  const std::string m = message_of([&] { fleet.start(0); });
  EXPECT_NE(m.find("node 0 (incarnation 0) did not start"), std::string::npos) << m;
  EXPECT_NE(m.find("cannot reach the coordinator"), std::string::npos) << m;
}

TEST(Fleet, ANodeThatEndsBeforeReadyIsNamedWithItsStatus) {
  plumbing::TempDir dir("idbench-fleet-test");
  Fleet fleet(shell(dir, "echo 'no such flag' >&2; exit 2"), 5 * kSecond);
  const std::string m = message_of([&] { fleet.start(0); });
  EXPECT_NE(m.find("did not start (exit status 2): no such flag"), std::string::npos) << m;
}

// The end of its stderr on one line (plumbing/text_tail.hpp), or a word for none.
TEST(Fleet, ANodesLastWordsAreOneLineOrNoMessage) {
  plumbing::TempDir talker_dir("idbench-fleet-test"), silent_dir("idbench-fleet-test");
  Fleet talker(shell(talker_dir, "printf 'starting\\nbad flag\\n\\n' >&2; exit 2"), 5 * kSecond);
  const std::string talked = message_of([&] { talker.start(0); });
  EXPECT_NE(talked.find("(exit status 2): starting | bad flag"), std::string::npos) << talked;
  Fleet silent(shell(silent_dir, "exit 2"), 5 * kSecond);
  const std::string said = message_of([&] { silent.start(0); });
  EXPECT_NE(said.find("(exit status 2): (no message)"), std::string::npos) << said;
}

TEST(Fleet, TheFailureNamerCanThrowItsOwnError) {
  plumbing::TempDir dir("idbench-fleet-test");
  struct Named : Error {
    using Error::Error;
  };
  NodeFailure seen;
  Fleet fleet(shell(dir, "echo 'etcd did not answer' >&2; exit 2"), 5 * kSecond,
              [&](const NodeFailure& f) {
                seen = f;
                if (f.stderr_text.find("did not answer") != std::string::npos) throw Named("etcd");
              });
  EXPECT_THROW(fleet.start(0), Named);
  EXPECT_EQ(seen.node, 0);
  EXPECT_EQ(seen.what, "did not start");
  EXPECT_EQ(seen.status, 2);
  EXPECT_EQ(seen.stderr_path, dir.path() + "/node-0.inc-0.err");
}

TEST(Fleet, ANodeThatEndsEarlyIsCaughtWhileTheRunWaits) {
  plumbing::TempDir dir("idbench-fleet-test");
  Fleet fleet(shell(dir, "echo ready; sleep 0.2; echo 'out of memory' >&2; exit 3"), 5 * kSecond);
  ASSERT_EQ(fleet.start(0), "ready");
  const std::int64_t deadline = plumbing::monotonic_ns() + 30 * kSecond;
  const std::string m = message_of([&] { fleet.watch_until(deadline); });
  EXPECT_NE(m.find("node 0 (incarnation 0) ended early (exit status 3): out of memory"),
            std::string::npos)
      << m;
  EXPECT_LT(plumbing::monotonic_ns(), deadline) << "caught at once, not at the deadline";
}

TEST(Fleet, ANodeStillRunningIsNotAFailure) {
  plumbing::TempDir dir("idbench-fleet-test");
  Fleet fleet(shell(dir, "echo ready; exec sleep 30"), 5 * kSecond);
  ASSERT_EQ(fleet.start(0), "ready");
  ASSERT_EQ(fleet.start(1), "ready");
  EXPECT_NO_THROW(fleet.watch_until(plumbing::monotonic_ns() + kSecond / 5));
  EXPECT_TRUE(fleet.running(0));
  EXPECT_TRUE(fleet.running(1));
}

TEST(Fleet, ARestartIsTheNextIncarnation) {
  plumbing::TempDir dir("idbench-fleet-test");
  Fleet fleet(shell(dir, "echo ready $1 $2; exec sleep 30"), 5 * kSecond);
  EXPECT_EQ(fleet.start(0), "ready 0 0");
  EXPECT_EQ(fleet.incarnation(0), 0);
  EXPECT_THROW(fleet.start(0), std::logic_error) << "a running node is not restarted";
  fleet.kill(0);
  EXPECT_FALSE(fleet.running(0));
  EXPECT_NO_THROW(fleet.check()) << "a node killed on purpose did not end early";
  EXPECT_EQ(fleet.start(0), "ready 0 1");
  EXPECT_EQ(fleet.incarnation(0), 1);
  EXPECT_EQ(fleet.stderr_path(0), dir.path() + "/node-0.inc-1.err");
  EXPECT_EQ(fleet.size(), 1);
}

TEST(Fleet, StopReportsANonZeroStatus) {
  plumbing::TempDir dir("idbench-fleet-test");
  Fleet fleet(shell(dir, "echo ready; read x; [ $1 = 1 ] && { echo 'lost its records' >&2; exit 5; }; exit 0"),
              5 * kSecond);
  fleet.start(0);
  fleet.start(1);
  const std::string m = message_of([&] {
    fleet.stop({.close_stdin = true, .deadline_mono_ns = plumbing::monotonic_ns() + 10 * kSecond});
  });
  EXPECT_NE(m.find("node 1 (incarnation 0) failed (exit status 5): lost its records"),
            std::string::npos)
      << m;
}

TEST(Fleet, StopResumesAPausedNodeAndSkipsAKilledOne) {
  plumbing::TempDir dir("idbench-fleet-test");
  Fleet fleet(shell(dir, "echo ready; read x; exit 0"), 5 * kSecond);
  fleet.start(0);
  fleet.start(1);
  fleet.pause(0);
  EXPECT_TRUE(fleet.paused(0));
  fleet.kill(1);
  EXPECT_NO_THROW(fleet.stop(
      {.close_stdin = true, .deadline_mono_ns = plumbing::monotonic_ns() + 10 * kSecond}));
  EXPECT_FALSE(fleet.running(0));
}

TEST(Fleet, ANodeThatDoesNotStopIsKilledAndNamed) {
  plumbing::TempDir dir("idbench-fleet-test");
  Fleet fleet(shell(dir, "echo ready; exec sleep 30"), 5 * kSecond);
  fleet.start(0);
  const pid_t pid = fleet.process(0).pid();
  const std::string m = message_of([&] {
    fleet.stop({.close_stdin = true, .deadline_mono_ns = plumbing::monotonic_ns() + kSecond / 5});
  });
  EXPECT_NE(m.find("node 0 (incarnation 0) did not stop by its deadline (no answer)"),
            std::string::npos)
      << m;
  EXPECT_FALSE(exists(pid));
}

TEST(Fleet, KillLeavesNoProcess) {
  plumbing::TempDir dir("idbench-fleet-test");
  Fleet fleet(shell(dir, "echo ready; exec sleep 30"), 5 * kSecond);
  fleet.start(0);
  const pid_t pid = fleet.process(0).pid();
  ASSERT_TRUE(exists(pid));
  fleet.kill(0);
  EXPECT_FALSE(exists(pid));
}

TEST(Fleet, AFleetLeftOnAnErrorPathLeavesNoProcess) {
  plumbing::TempDir dir("idbench-fleet-test");
  pid_t pid = 0;
  {
    Fleet fleet(shell(dir, "echo ready; exec sleep 30"), 5 * kSecond);
    fleet.start(0);
    fleet.pause(0);
    pid = fleet.process(0).pid();
  }
  EXPECT_FALSE(exists(pid));
}

}  // namespace
}  // namespace idbench::fault
