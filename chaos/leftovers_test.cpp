#include "chaos/leftovers.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

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

TEST(SweepFaketimeShm, RemovesWhatDeadProcessesLeftAndKeepsTheLiving) {
  const pid_t gone = dead_pid();
  const std::string dead = fmt::format("/dev/shm/faketime_shm_{}", gone);
  const std::string dead_sem = fmt::format("/dev/shm/sem.faketime_sem_idbench_{}", gone);
  const std::string alive = fmt::format("/dev/shm/faketime_shm_{}", ::getpid());
  const std::string other = fmt::format("/dev/shm/faketime_shm_{}x", gone);  // not ours
  for (const auto& p : {dead, dead_sem, alive, other}) std::ofstream(p) << "x";
  sweep_stale_faketime_shm();
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_FALSE(fs::exists(dead_sem));
  EXPECT_TRUE(fs::exists(alive));
  EXPECT_TRUE(fs::exists(other));
  fs::remove(alive);
  fs::remove(other);
}

TEST(SweepRunDirs, RemovesTheDirectoriesOfDeadRunsOnly) {
  const std::string mine = make_owned_temp_dir("idbench-chaos");
  const pid_t gone = dead_pid();
  const fs::path stale = fs::temp_directory_path() / fmt::format("idbench-chaos-{}-AbC123", gone);
  const fs::path stale_mark =
      fs::temp_directory_path() / fmt::format("idbench-chaos-mark-{}-AbC123", gone);
  fs::create_directories(stale / "sub");
  fs::create_directories(stale_mark);
  EXPECT_GE(sweep_stale_run_dirs(), 2);
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_FALSE(fs::exists(stale_mark));
  EXPECT_TRUE(fs::exists(mine));
  EXPECT_NE(mine.find(fmt::format("idbench-chaos-{}-", ::getpid())), std::string::npos);
  fs::remove_all(mine);
}

}  // namespace
}  // namespace idbench::chaos
