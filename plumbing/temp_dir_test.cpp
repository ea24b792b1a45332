// temp_dir_test.cpp — TempDir removes itself; the sweep removes dead owners' dirs only.
#include "plumbing/temp_dir.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "plumbing/error.hpp"

namespace idbench::plumbing {
namespace {

namespace fs = std::filesystem;

// A pid that just ended, so (almost surely) no process has it now.
pid_t dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  return child;
}

// Points TMPDIR at a private directory for one test, so sweeping touches nothing else.
class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "plumbing-temp-dir-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    root_ = tmpl;
    ::setenv("TMPDIR", root_.c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("TMPDIR");
    fs::remove_all(root_);
  }
  fs::path root_;
};

TEST_F(TempDirTest, LivesUnderTmpdirNamedByOurPidPrivateAndGoneWithEverythingInIt) {
  std::string path;
  {
    TempDir dir("idbench-test");
    path = dir.path();
    EXPECT_EQ(fs::path(path).parent_path(), root_);
    EXPECT_TRUE(fs::path(path).filename().string().starts_with(
        fmt::format("idbench-test-{}-", ::getpid())));
    struct stat st {};
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    fs::create_directories(fs::path(path) / "a" / "b");
    std::ofstream(fs::path(path) / "a" / "b" / "f") << "x";
  }
  EXPECT_FALSE(fs::exists(path));
}

TEST_F(TempDirTest, RefusesAPrefixTheSweepWouldNotRecognise) {
  EXPECT_THROW(TempDir("mariadb"), Error);
}

TEST_F(TempDirTest, ReleaseKeepsTheDirectoryAndMoveKeepsOneOwner) {
  TempDir a("idbench-test");
  const std::string path = a.path();
  TempDir b(std::move(a));
  EXPECT_EQ(b.path(), path);
  EXPECT_EQ(b.release(), path);
  EXPECT_TRUE(fs::exists(path));
}

TEST_F(TempDirTest, SweepRemovesTheDirectoriesOfDeadOwnersAndKeepsTheLiving) {
  const TempDir mine("idbench-postgres");
  const pid_t gone = dead_pid();
  const fs::path stale = root_ / fmt::format("idbench-mariadb-{}-AbC123", gone);
  const fs::path stale_dashed = root_ / fmt::format("idbench-chaos-mark-{}-AbC123", gone);
  const fs::path of_init = root_ / "idbench-sqlite-1-AbC123";                // pid 1 lives
  const fs::path not_ours = root_ / fmt::format("idbench-{}-AbC123", gone);  // no "what"
  const fs::path other = root_ / fmt::format("other-chaos-{}-AbC123", gone);
  const fs::path a_link = root_ / fmt::format("idbench-link-{}-AbC123", gone);
  fs::create_directories(stale / "data" / "base");
  std::ofstream(stale / "data" / "base" / "f") << "x";
  for (const auto& d : {stale_dashed, of_init, not_ours, other}) fs::create_directories(d);
  fs::create_directory_symlink(of_init, a_link);

  EXPECT_EQ(sweep_stale_temp_dirs(root_.string()), 2);  // /tmp, also swept, is not ours to count
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_FALSE(fs::exists(stale_dashed));
  EXPECT_TRUE(fs::exists(mine.path()));
  EXPECT_TRUE(fs::exists(of_init));
  EXPECT_TRUE(fs::exists(not_ours));
  EXPECT_TRUE(fs::exists(other));
  EXPECT_TRUE(fs::is_symlink(a_link));
  EXPECT_EQ(sweep_stale_temp_dirs(root_.string()), 0);
}

// Every maker of a temp dir sweeps, not only those that remembered to call the sweep: a
// SIGKILLed `worker-ids --worker-ids static` left its idbench-workerids dir for good.
TEST_F(TempDirTest, MakingOneSweepsTheDirectoriesOfDeadOwners) {
  const fs::path stale = root_ / fmt::format("idbench-workerids-{}-AbC123", dead_pid());
  fs::create_directories(stale / "node-0");
  const TempDir dir("idbench-test");
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(dir.path()));
}

TEST_F(TempDirTest, GiveToHandsTheWholeTreeToAnotherUser) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to chown";
  TempDir dir("idbench-test");
  fs::create_directories(fs::path(dir.path()) / "sub");
  dir.give_to(65534, 65534);
  struct stat st {};
  ASSERT_EQ(::stat((dir.path() + "/sub").c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 65534u);
  ASSERT_EQ(::stat(dir.path().c_str(), &st), 0);
  EXPECT_EQ(st.st_gid, 65534u);
}

// A server that runs as another user (PostgreSQL as nobody) could not reach a directory under a
// private TMPDIR: its directory goes to /tmp then, and only then.
TEST_F(TempDirTest, ADirectoryForAUserWhoCannotReachTmpdirIsMadeInTheSystemTempDir) {
  const RunAs nobody{65534, 65534};
  ASSERT_EQ(::chmod(root_.c_str(), 0700), 0);
  EXPECT_FALSE(reachable_by(root_.string(), nobody));
  EXPECT_FALSE(reachable_by((root_ / "below").string(), nobody));
  const TempDir closed("idbench-test", nobody);
  EXPECT_EQ(fs::path(closed.path()).parent_path(), fs::path(kSystemTempRoot));
  EXPECT_EQ(fs::path(TempDir("idbench-test", std::nullopt).path()).parent_path(), root_);

  ASSERT_EQ(::chmod(root_.c_str(), 0711), 0);
  EXPECT_TRUE(reachable_by(root_.string(), nobody));
  EXPECT_EQ(fs::path(TempDir("idbench-test", nobody).path()).parent_path(), root_);
}

TEST_F(TempDirTest, TheSweepCoversTmpdirAndTheSystemTempDir) {
  const pid_t gone = dead_pid();
  const fs::path here = root_ / fmt::format("idbench-pg-{}-AbC123", gone);
  const fs::path in_tmp = fs::path(kSystemTempRoot) / fmt::format("idbench-pg-{}-AbC123", gone);
  fs::create_directories(here);
  fs::create_directories(in_tmp / "data");
  sweep_stale_temp_dirs();
  EXPECT_FALSE(fs::exists(here));
  EXPECT_FALSE(fs::exists(in_tmp)) << "a server's directory made in /tmp outlives its run";
}

TEST(TempRoot, IsTmpdirOrTmp) {
  ::setenv("TMPDIR", "", 1);
  EXPECT_EQ(temp_root(), "/tmp");
  ::setenv("TMPDIR", "/var/tmp", 1);
  EXPECT_EQ(temp_root(), "/var/tmp");
  ::unsetenv("TMPDIR");
  EXPECT_EQ(temp_root(), "/tmp");
}

}  // namespace
}  // namespace idbench::plumbing
