// snapshot_nemesis_test.cpp — the snapshot nemesis on a real mariadbd (skipped without MariaDB):
// a restore takes the server's counter back to the copy, each step recorded once; a planted
// restore that only records is caught by the same check; a restore before any snapshot and a
// verb it does not play fail and record nothing; teardown starts a server left down.
#include "real/snapshot_nemesis.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "plumbing/child_process.hpp"
#include "real/mariadb_server.hpp"

namespace idbench::real {
namespace {

bool mariadb_installed() { return !plumbing::find_program("mariadbd").empty(); }

// Inserts a row and returns its id: the counter's next value.
std::uint64_t insert(MariadbServer& server) {
  return std::stoull(server.query("INSERT INTO t.c () VALUES (); SELECT LAST_INSERT_ID()"));
}

// What a counter did around a snapshot and a restore played by some nemesis.
struct AroundARestore {
  fault::Instant before_snapshot, before_restore;
  std::uint64_t last_before_restore = 0;  // the last value handed out before the restore
  std::uint64_t next = 0;                 // the first after it
};

// Three values handed out, the snapshot, three more, the restore, one more.
AroundARestore play_restore(fault::Nemesis& restore, MariadbServer& server, fault::Timeline& t) {
  server.query("CREATE DATABASE t");
  server.query("CREATE TABLE t.c (id BIGINT UNSIGNED AUTO_INCREMENT PRIMARY KEY) ENGINE=InnoDB");
  AroundARestore out;
  for (int i = 0; i < 3; ++i) insert(server);
  out.before_snapshot = fault::Instant::now();
  restore.invoke({.op = "snapshot", .kind = "fault", .what = "snapshot of the server"}, t);
  for (int i = 0; i < 3; ++i) out.last_before_restore = insert(server);
  out.before_restore = fault::Instant::now();
  restore.invoke({.op = "restore", .kind = "fault", .what = "the server restored"}, t);
  out.next = insert(server);
  return out;
}

// The check: the counter went back, it hands out again a value it had handed out.
bool went_back(const AroundARestore& a) { return a.next <= a.last_before_restore; }

// The planted defect: snapshots as the real nemesis does, but its restore only records.
class RestoreThatOnlyRecords : public fault::Nemesis {
 public:
  explicit RestoreThatOnlyRecords(MariadbServer& server) : real_(server) {}
  std::string_view kind() const override { return "planted"; }
  void invoke(const fault::FaultStep& step, fault::Timeline& t) override {
    if (step.op != "restore") return real_.invoke(step, t);
    t.record(fault::kNoNode, step.kind, step.what);
  }

 private:
  SnapshotNemesis real_;
};

TEST(SnapshotNemesis, ARestoreTakesTheCounterBackToTheCopyEachStepRecordedOnce) {
  if (!mariadb_installed()) GTEST_SKIP() << "mariadb-server is not installed";
  MariadbServer server(MariadbSettings{});
  fault::Timeline t("test", "restore", nullptr);
  SnapshotNemesis restore(server);
  EXPECT_EQ(restore.kind(), "snapshot");
  const AroundARestore a = play_restore(restore, server, t);
  EXPECT_TRUE(went_back(a)) << a.next << " after " << a.last_before_restore;
  EXPECT_EQ(a.last_before_restore, 6u);
  EXPECT_EQ(a.next, 4u);  // the copy's next value
  EXPECT_TRUE(server.running());
  ASSERT_EQ(t.history().size(), 2u);
  EXPECT_EQ(t.history()[0].what, "snapshot of the server");
  EXPECT_EQ(t.history()[1].what, "the server restored");
  for (const fault::FaultRecord& r : t.history()) {
    EXPECT_EQ(r.node, fault::kNoNode);
    EXPECT_EQ(r.kind, "fault");
    EXPECT_FALSE(r.faked_ns.has_value());
  }
  // The snapshot at the instant it began; the restore after its clean stop began.
  EXPECT_GE(t.history()[0].mono_ns, a.before_snapshot.mono_ns);
  EXPECT_LT(t.history()[0].mono_ns, a.before_restore.mono_ns);
  EXPECT_GT(t.history()[1].mono_ns, a.before_restore.mono_ns);
}

TEST(SnapshotNemesis, APlantedRestoreThatOnlyRecordsIsCaught) {
  if (!mariadb_installed()) GTEST_SKIP() << "mariadb-server is not installed";
  MariadbServer server(MariadbSettings{});
  fault::Timeline t("test", "planted", nullptr);
  RestoreThatOnlyRecords restore(server);
  const AroundARestore a = play_restore(restore, server, t);
  // Its history looks like the real one's; the counter shows it restored nothing.
  EXPECT_EQ(t.history().size(), 2u);
  EXPECT_FALSE(went_back(a)) << a.next << " after " << a.last_before_restore;
}

TEST(SnapshotNemesis, ARestoreBeforeASnapshotOrAnUnknownVerbFailsAndTeardownStartsTheServer) {
  if (!mariadb_installed()) GTEST_SKIP() << "mariadb-server is not installed";
  MariadbServer server(MariadbSettings{});
  fault::Timeline t("test", "wrong", nullptr);
  SnapshotNemesis restore(server);
  EXPECT_THROW(restore.invoke({.op = "restore", .kind = "fault", .what = "x"}, t),
               std::logic_error);
  EXPECT_THROW(restore.invoke({.op = "kill", .kind = "fault", .what = "x"}, t), std::logic_error);
  EXPECT_TRUE(t.history().empty());
  EXPECT_TRUE(server.running());
  server.stop();  // as a restore that failed after its stop leaves it
  restore.teardown(t);
  EXPECT_TRUE(server.running());
  EXPECT_EQ(server.query("SELECT 1"), "1");
  EXPECT_TRUE(t.history().empty());  // teardown records nothing
}

}  // namespace
}  // namespace idbench::real
