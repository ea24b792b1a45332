// postgres_shm_test.cpp — a killed PostgreSQL server's SysV segment goes with its directory,
// whether the run removes the directory or the next run sweeps it; a live server's stays.
#include "plumbing/postgres_shm.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>

#include "plumbing/db_server.hpp"
#include "plumbing/postgres_test_support.hpp"
#include "plumbing/temp_dir.hpp"

namespace idbench::plumbing {
namespace {

namespace fs = std::filesystem;

// Any Debian PostgreSQL's bin directory, or empty.
std::string postgres_bin() {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/usr/lib/postgresql", ec)) {
    if (fs::exists(e.path() / "bin" / "postgres")) return (e.path() / "bin").string();
  }
  return {};
}

// A small cluster in a DbServer: initdb, then postgres on a unix socket in its directory.
void start_postgres(DbServer& db, const std::string& bin) {
  const std::string data = db.dir() + "/data";
  db.init({bin + "/initdb", "-D", data, "-U", "t", "-A", "trust", "--no-sync"}, "initdb");
  db.start({bin + "/postgres", "-D", data, "-k", db.dir(), "-c", "listen_addresses=", "-c",
            "shared_buffers=16MB", "-c", "dynamic_shared_memory_type=mmap"},
           {bin + "/psql", "-X", "-q", "-h", db.dir(), "-U", "t", "-d", "postgres"}, "postgres");
}

// A private TMPDIR, which `nobody` (the server's user when we are root) can enter.
class PostgresShmTest : public ::testing::Test {
 protected:
  void SetUp() override {
    bin_ = postgres_bin();
    if (bin_.empty()) GTEST_SKIP() << "PostgreSQL is not installed";
    std::string tmpl = (fs::temp_directory_path() / "postgres-shm-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    root_ = tmpl;
    ::chmod(root_.c_str(), 0755);
    ::setenv("TMPDIR", root_.c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("TMPDIR");
    if (!root_.empty()) fs::remove_all(root_);
  }
  std::string bin_;
  fs::path root_;
};

TEST_F(PostgresShmTest, TheSegmentOfAServerKilledWithSigkillGoesWithItsDirectory) {
  int shmid = -1;
  {
    DbServer db("idbench-postgres", unprivileged_user_if_root());
    start_postgres(db, bin_);
    shmid = segment_named_in(db.dir() + "/data");
    ASSERT_GE(shmid, 0);
    db.kill9();
    EXPECT_TRUE(segment_exists(shmid)) << "a killed server no longer leaves its segment";
  }
  EXPECT_FALSE(segment_exists(shmid)) << "shmid " << shmid;
}

TEST_F(PostgresShmTest, TheSweepRemovesTheSegmentOfARunKilledWithSigkill) {
  const int shmid = run_killed_with_sigkill([&](const auto& told) {
                      DbServer db("idbench-postgres", unprivileged_user_if_root());
                      start_postgres(db, bin_);
                      told(segment_named_in(db.dir() + "/data"));
                    }).shmid;
  ASSERT_GE(shmid, 0) << "the run's server did not start";
  EXPECT_TRUE(segment_exists(shmid));
  EXPECT_EQ(sweep_stale_temp_dirs(root_.string()), 1);  // /tmp, also swept, is not ours to count
  EXPECT_FALSE(segment_exists(shmid)) << "shmid " << shmid;
}

TEST_F(PostgresShmTest, ARunningServersSegmentAndOtherDirectoriesAreLeftAlone) {
  DbServer db("idbench-postgres", unprivileged_user_if_root());
  start_postgres(db, bin_);
  const std::string data = db.dir() + "/data";
  const int shmid = segment_named_in(data);
  ASSERT_GE(shmid, 0);
  EXPECT_EQ(remove_postgres_segments({db.dir(), root_.string(), "/no/such/dir"}), 0);
  EXPECT_EQ(remove_postgres_segments({data}), 0);  // attached: waited for, then left
  EXPECT_TRUE(segment_exists(shmid));
  db.stop();  // a clean shutdown removes its own segment
  EXPECT_FALSE(segment_exists(shmid));
}

}  // namespace
}  // namespace idbench::plumbing
