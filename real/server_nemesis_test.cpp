// server_nemesis_test.cpp — the server nemesis on a real mariadbd (skipped without MariaDB): a
// kill leaves no server and a start brings it back answering, each recorded once at the instant
// it began; teardown starts a server a kill left down; a verb it does not play fails.
#include "real/server_nemesis.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "plumbing/child_process.hpp"
#include "real/mariadb_server.hpp"

namespace idbench::real {
namespace {

bool mariadb_installed() { return !plumbing::find_program("mariadbd").empty(); }

TEST(ServerCrashNemesis, AKillLeavesNoServerAndAStartBringsItBackEachRecordedOnce) {
  if (!mariadb_installed()) GTEST_SKIP() << "mariadb-server is not installed";
  MariadbServer server(MariadbSettings{});
  fault::Timeline t("test", "crash", nullptr);
  ServerCrashNemesis crash(server);
  EXPECT_EQ(crash.kind(), "server");
  const fault::Instant before_kill = fault::Instant::now();
  crash.invoke({.op = "kill", .kind = "fault", .what = "kill -9 of mariadbd"}, t);
  EXPECT_FALSE(server.running());
  ASSERT_EQ(t.history().size(), 1u);
  EXPECT_GE(t.history()[0].mono_ns, before_kill.mono_ns);
  EXPECT_EQ(t.history()[0].node, fault::kNoNode);
  EXPECT_EQ(t.history()[0].kind, "fault");
  EXPECT_EQ(t.history()[0].what, "kill -9 of mariadbd");
  const fault::Instant before_start = fault::Instant::now();
  crash.invoke({.op = "start", .kind = "fault", .what = "mariadbd restarting"}, t);
  const fault::Instant after_start = fault::Instant::now();
  EXPECT_TRUE(server.running());
  EXPECT_EQ(server.query("SELECT 1"), "1");
  ASSERT_EQ(t.history().size(), 2u);
  // Recorded at the instant the restart began, not when recovery ended.
  EXPECT_GE(t.history()[1].mono_ns, before_start.mono_ns);
  EXPECT_LE(t.history()[1].mono_ns, after_start.mono_ns);
  EXPECT_GE(t.history()[1].true_ns, t.history()[0].true_ns);
  crash.invoke({.op = "kill", .kind = "fault", .what = "again"}, t);
  crash.teardown(t);
  EXPECT_TRUE(server.running());
  EXPECT_EQ(t.history().size(), 3u);  // teardown records nothing
}

TEST(ServerCrashNemesis, AVerbItDoesNotPlayFailsAndRecordsNothing) {
  if (!mariadb_installed()) GTEST_SKIP() << "mariadb-server is not installed";
  MariadbServer server(MariadbSettings{});
  fault::Timeline t("test", "wrong", nullptr);
  ServerCrashNemesis crash(server);
  EXPECT_THROW(crash.invoke({.op = "pause", .kind = "fault", .what = "x"}, t), std::logic_error);
  EXPECT_TRUE(t.history().empty());
  EXPECT_TRUE(server.running());
}

}  // namespace
}  // namespace idbench::real
