// run_test_support.hpp — the fixture of the end-to-end chaos tests (run_test.cpp,
// run_wallclock_test.cpp): real node processes under libfaketime, and the check that a run
// leaves nothing behind (no child process, no /dev/shm/faketime_* entry of a dead process).
#pragma once

#include <dirent.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "chaos/driver.hpp"
#include "plumbing/leftovers.hpp"

namespace idbench::chaos::chaos_testing {

namespace fs = std::filesystem;

// Processes whose parent is this test process.
inline std::vector<int> our_children() {
  std::vector<int> out;
  DIR* proc = ::opendir("/proc");
  while (const dirent* d = ::readdir(proc)) {
    const int pid = std::atoi(d->d_name);
    if (pid <= 0) continue;
    std::ifstream stat(fmt::format("/proc/{}/stat", pid));
    std::string line;
    std::getline(stat, line);
    const std::size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 2));
    char state = 0;
    int ppid = 0;
    rest >> state >> ppid;
    if (ppid == ::getpid()) out.push_back(pid);
  }
  ::closedir(proc);
  return out;
}

class ChaosRun : public ::testing::Test {
 protected:
  void SetUp() override {
    plumbing::sweep_leftovers();  // as every idbench command does before it runs
    ASSERT_TRUE(our_children().empty());
  }
  void TearDown() override {
    EXPECT_TRUE(our_children().empty()) << "a node outlived its run";
    EXPECT_EQ(plumbing::sweep_stale_faketime_shm(), 0) << "a run left /dev/shm/faketime_* behind";
  }

  static RunResult run(const std::string& scenario, const std::string& variant,
                       const std::string& policy, double scale = 0.25) {
    RunConfig cfg;
    cfg.scenario = scenario;
    cfg.variant = variant;
    cfg.policy = policy;
    cfg.time_scale = scale;
    cfg.rate = 20'000;
    return run_chaos(cfg, nullptr);
  }
};

}  // namespace idbench::chaos::chaos_testing
