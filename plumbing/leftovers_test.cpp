// leftovers_test.cpp — the one sweep removes one leftover of every kind a dead idbench process
// leaves (its temp dirs, an etcd member's and a database server's among them, the SysV segment
// of a PostgreSQL data directory, libfaketime's /dev/shm pair) and leaves a live process's.
#include "plumbing/leftovers.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace idbench::plumbing {
namespace {

namespace fs = std::filesystem;

// A pid that just ended, so (almost surely) no process has it now.
pid_t ended_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  return child;
}

// The interlock segment a PostgreSQL server keeps for `data_dir`, as a killed one leaves it:
// its key from the directory's inode, its header PostgreSQL's magic number, device and inode
// (the LP64 layout postgres_shm.cpp reads: magic at 0, device at 40, inode at 48). -1 when
// this machine allows no SysV segment.
int plant_postgres_segment(const fs::path& data_dir) {
  struct stat st {};
  if (::stat(data_dir.c_str(), &st) != 0) return -1;
  constexpr std::int32_t kMagic = 679834894;
  constexpr std::size_t kSize = 56, kDeviceAt = 40, kInodeAt = 48;
  for (std::uint32_t k = 0; k < 16; ++k) {
    const key_t key = static_cast<key_t>(static_cast<std::uint32_t>(st.st_ino) + k);
    const int shmid = ::shmget(key, kSize, IPC_CREAT | IPC_EXCL | 0600);
    if (shmid < 0) continue;
    auto* at = static_cast<char*>(::shmat(shmid, nullptr, 0));
    if (at == reinterpret_cast<char*>(-1)) return -1;
    std::memcpy(at, &kMagic, sizeof kMagic);
    std::memcpy(at + kDeviceAt, &st.st_dev, sizeof st.st_dev);
    std::memcpy(at + kInodeAt, &st.st_ino, sizeof st.st_ino);
    ::shmdt(at);
    return shmid;
  }
  return -1;
}

bool segment_exists(int shmid) {
  shmid_ds ds{};
  return ::shmctl(shmid, IPC_STAT, &ds) == 0;
}

// Everything one process (`pid`) leaves when killed: paths under `tmp` and /dev/shm, and the
// segment of the PostgreSQL data directory in its server's directory.
struct Planted {
  std::vector<fs::path> paths;
  int segment = -1;
};

Planted plant_leftovers_of(long pid, const fs::path& tmp) {
  Planted p;
  const auto dir = [&](std::string_view what) {
    return tmp / fmt::format("idbench-{}-{}-AbC123", what, pid);
  };
  fs::create_directories(dir("chaos") / "records");  // a chaos run's records
  fs::create_directories(dir("etcd") / "member-0");   // an etcd cluster's members
  fs::create_directories(dir("postgres") / "data");   // a database server's data directory
  p.segment = plant_postgres_segment(dir("postgres") / "data");
  p.paths = {dir("chaos"), dir("etcd"), dir("postgres"),
             fmt::format("/dev/shm/faketime_shm_idbench_{}", pid),
             fmt::format("/dev/shm/sem.faketime_sem_idbench_{}", pid),
             fmt::format("/dev/shm/faketime_shm_{}", pid)};
  for (std::size_t i = 3; i < p.paths.size(); ++i) std::ofstream(p.paths[i]) << "x";
  return p;
}

TEST(SweepLeftovers, RemovesEveryKindADeadProcessLeftAndKeepsALiveOnes) {
  std::string root = (fs::temp_directory_path() / "plumbing-leftovers-test-XXXXXX").string();
  ASSERT_NE(::mkdtemp(root.data()), nullptr);
  ::setenv("TMPDIR", root.c_str(), 1);  // the sweep looks here, and nowhere else we own
  const Planted dead = plant_leftovers_of(ended_pid(), root);
  const Planted live = plant_leftovers_of(::getpid(), root);

  const Swept swept = sweep_leftovers();

  EXPECT_EQ(swept.temp_dirs, 3);  // the private TMPDIR: no other test's sweep gets there first
  // /dev/shm is the machine's: a concurrent sweep may count some of ours, so only their absence
  // is checked below.
  for (const fs::path& p : dead.paths) EXPECT_FALSE(fs::exists(p)) << p;
  for (const fs::path& p : live.paths) EXPECT_TRUE(fs::exists(p)) << p;
  if (dead.segment < 0 || live.segment < 0) {
    ADD_FAILURE() << "no SysV segment could be planted: the PostgreSQL kind is untested";
  } else {
    EXPECT_FALSE(segment_exists(dead.segment)) << "shmid " << dead.segment;
    EXPECT_TRUE(segment_exists(live.segment)) << "shmid " << live.segment;
  }
  if (live.segment >= 0) ::shmctl(live.segment, IPC_RMID, nullptr);
  for (const fs::path& p : live.paths) fs::remove_all(p);
  ::unsetenv("TMPDIR");
  fs::remove_all(root);
}

// Moved from chaos/ with the sweep: a name that only looks like libfaketime's stays.
TEST(SweepFaketimeShm, RemovesWhatDeadProcessesLeftAndKeepsTheLiving) {
  const pid_t gone = ended_pid();
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

TEST(PidGone, OnlyForAPidNoProcessHas) {
  EXPECT_FALSE(pid_gone(::getpid()));
  EXPECT_FALSE(pid_gone(1));  // init: alive, and perhaps another user's (EPERM)
  EXPECT_FALSE(pid_gone(0));
  EXPECT_TRUE(pid_gone(ended_pid()));
}

}  // namespace
}  // namespace idbench::plumbing
