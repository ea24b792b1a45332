// postgres_cluster_test.cpp — a private PostgreSQL cluster on a real server (skipped when
// PostgreSQL is not installed):
//   * the initdb template a test run shares: a file planted in it reaches the next cluster's
//     data directory (0700, the server user's); a template stamped for another initdb or other
//     options is made again;
//   * with TMPDIR a private (0700) directory its server user (nobody, when root) cannot reach,
//     a cluster starts and answers; killed, its SysV segment goes with its directory; a run
//     killed with SIGKILL leaves its directory in /tmp to the next run's sweep, segment and all.
#include "plumbing/postgres_cluster.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>

#include "plumbing/atomic_file.hpp"
#include "plumbing/leftovers.hpp"
#include "plumbing/postgres_test_support.hpp"

namespace idbench::plumbing {
namespace {

namespace fs = std::filesystem;

// Sets (or unsets, with nullopt) an environment variable for one test; puts it back after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::optional<std::string>& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    set(value);
  }
  ~ScopedEnv() { set(old_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  void set(const std::optional<std::string>& value) {
    if (value) {
      ::setenv(name_, value->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }
  const char* name_;
  std::optional<std::string> old_;
};

// A private TMPDIR (mode 0700, as mkdtemp makes it) and no shared template, per test.
class PostgresClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (postgres_bin_dir().empty()) GTEST_SKIP() << "PostgreSQL is not installed";
    std::string tmpl = (fs::temp_directory_path() / "postgres-cluster-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    root_ = tmpl;
    tmpdir_.emplace("TMPDIR", root_.string());
    template_.emplace(kPostgresTemplateEnv, std::nullopt);
  }
  void TearDown() override {
    template_.reset();
    tmpdir_.reset();
    std::error_code ec;
    if (!root_.empty()) fs::remove_all(root_, ec);
  }
  // Only as root does the server run as another user.
  bool as_root() const { return ::geteuid() == 0; }
  fs::path root_;
  std::optional<ScopedEnv> tmpdir_;
  std::optional<ScopedEnv> template_;
};

// The template in the test's own directory (reachable or not, only this process copies it).
class PostgresTemplateTest : public PostgresClusterTest {
 protected:
  void SetUp() override {
    PostgresClusterTest::SetUp();
    if (IsSkipped()) return;
    ::chmod(root_.c_str(), 0755);
    template_.emplace(kPostgresTemplateEnv, (root_ / "template").string());
  }
  fs::path dir() const { return root_ / "template"; }
};

TEST_F(PostgresTemplateTest, AFilePlantedInTheTemplateReachesTheNextCluster) {
  { PostgresCluster first("idbench-pg-test", {}); }
  ASSERT_TRUE(fs::is_directory(dir() / "data")) << "the first cluster made no template";
  write_file_atomically((dir() / "data" / "planted").string(), "x");
  PostgresCluster second("idbench-pg-test", {});
  EXPECT_TRUE(fs::exists(second.data_dir() + "/planted")) << "the template was not copied";
  EXPECT_EQ(second.query("SELECT 1"), "1");
  struct stat st {};
  ASSERT_EQ(::stat(second.data_dir().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u) << "PostgreSQL refuses a data directory open to others";
  if (second.run_as()) {
    EXPECT_EQ(st.st_uid, second.run_as()->uid) << "the copy is not the server user's";
  }
}

TEST_F(PostgresTemplateTest, ATemplateOfAnotherInitdbIsMadeAgain) {
  { PostgresCluster first("idbench-pg-test", {}); }
  write_file_atomically((dir() / "data" / "planted").string(), "x");
  write_file_atomically((dir() / "stamp").string(), "another initdb\n");
  PostgresCluster second("idbench-pg-test", {});
  EXPECT_FALSE(fs::exists(second.data_dir() + "/planted")) << "a stale template was copied";
  EXPECT_FALSE(fs::exists(dir() / "data" / "planted")) << "the template was not made again";
  EXPECT_NE(read_text_file((dir() / "stamp").string()), "another initdb\n");
  EXPECT_EQ(second.query("SELECT 1"), "1");
}

// A kill -9 of the server takes its backends with it. They are not in the postmaster's process
// group (each calls setsid()), and one running a query never checks that its postmaster died,
// so a kill of the group alone left it attached to the shared memory, and the restart failed:
// "pre-existing shared memory block ... is still in use".
TEST_F(PostgresClusterTest, AKill9TakesABusyBackendWithItSoTheServerRestartsAtOnce) {
  PostgresCluster pg("idbench-pg-test", {});
  ChildSpec spec;
  spec.argv = {find_program("psql", {pg.bin()}),
               "-X",
               "-q",
               "-h",
               pg.dir(),
               "-U",
               "idbench",
               "-d",
               "postgres",
               "-c",
               "SELECT count(*) FROM generate_series(1, 10000000000)"};
  ChildProcess busy(spec);
  const std::string running =
      "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid() "
      "AND query LIKE 'SELECT count(*) FROM generate_series%'";
  const std::int64_t until = monotonic_ns() + 20'000'000'000;
  while (pg.query(running) != "1" && monotonic_ns() < until) ::usleep(50'000);
  ASSERT_EQ(pg.query(running), "1") << "the busy query never ran";
  pg.db().kill9();
  EXPECT_NO_THROW(pg.db().restart());
  EXPECT_EQ(pg.query("SELECT 1"), "1");
}

TEST_F(PostgresClusterTest, AClusterWhoseUserCannotReachTmpdirStartsAndItsSegmentGoesWithIt) {
  if (!as_root()) GTEST_SKIP() << "only as root does the server run as another user (nobody)";
  std::string dir;
  int shmid = -1;
  {
    PostgresCluster pg("idbench-pg-test", {});
    dir = pg.dir();
    EXPECT_EQ(pg.query("SELECT 1"), "1");
    EXPECT_FALSE(dir.starts_with(root_.string())) << "nobody cannot reach " << dir;
    shmid = segment_named_in(pg.data_dir());
    ASSERT_GE(shmid, 0);
    pg.db().kill9();
    EXPECT_TRUE(segment_exists(shmid)) << "a killed server no longer leaves its segment";
  }
  EXPECT_FALSE(fs::exists(dir)) << dir;
  EXPECT_FALSE(segment_exists(shmid)) << "shmid " << shmid;
}

TEST_F(PostgresClusterTest, ARunKilledWithSigkillLeavesItsClusterToTheNextRunsSweep) {
  if (!as_root()) GTEST_SKIP() << "only as root does the server run as another user (nobody)";
  const KilledRun run = run_killed_with_sigkill([](const auto& told) {
    PostgresCluster pg("idbench-pg-test", {});
    told(segment_named_in(pg.data_dir()));
  });
  const int shmid = run.shmid;
  ASSERT_GE(shmid, 0) << "the run's cluster did not start";
  EXPECT_TRUE(segment_exists(shmid));
  sweep_leftovers();  // what the next idbench command does first
  EXPECT_FALSE(segment_exists(shmid)) << "shmid " << shmid;
  for (const auto& e : fs::directory_iterator(kSystemTempRoot)) {
    EXPECT_FALSE(
        e.path().filename().string().starts_with(fmt::format("idbench-pg-test-{}-", run.pid)))
        << e.path();
  }
}

}  // namespace
}  // namespace idbench::plumbing
