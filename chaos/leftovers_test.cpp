// leftovers_test.cpp — a chaos run's temp directories name their owner, and the one sweep
// (plumbing/leftovers.hpp) removes a dead run's records and mark directories, never a live one's.
#include "chaos/leftovers.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "plumbing/leftovers.hpp"

namespace idbench::chaos {
namespace {

namespace fs = std::filesystem;

// A pid that just ended, so (almost surely) no process has it now.
pid_t dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  return child;
}

TEST(SweepRunDirs, RemovesTheDirectoriesOfDeadRunsOnly) {
  // A private TMPDIR: another test's sweep (every TempDir sweeps) must not take ours first.
  std::string root = (fs::temp_directory_path() / "chaos-leftovers-test-XXXXXX").string();
  ASSERT_NE(::mkdtemp(root.data()), nullptr);
  ::setenv("TMPDIR", root.c_str(), 1);
  const std::string mine = make_owned_temp_dir("idbench-chaos");
  const pid_t gone = dead_pid();
  const fs::path stale = fs::temp_directory_path() / fmt::format("idbench-chaos-{}-AbC123", gone);
  const fs::path stale_mark =
      fs::temp_directory_path() / fmt::format("idbench-chaos-mark-{}-AbC123", gone);
  fs::create_directories(stale / "sub");
  fs::create_directories(stale_mark);
  EXPECT_EQ(plumbing::sweep_leftovers().temp_dirs, 2);
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_FALSE(fs::exists(stale_mark));
  EXPECT_TRUE(fs::exists(mine));
  EXPECT_NE(mine.find(fmt::format("idbench-chaos-{}-", ::getpid())), std::string::npos);
  ::unsetenv("TMPDIR");
  fs::remove_all(root);
}

}  // namespace
}  // namespace idbench::chaos
