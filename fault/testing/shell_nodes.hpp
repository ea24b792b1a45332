// shell_nodes.hpp — test support: tiny /bin/sh nodes for a fault::Fleet, and what the kernel
// says of a node's process (running, or stopped by a signal), for the tests of the fleet and of
// every nemesis that pauses or kills one (fault/, coord/). Header-only; tests only.
//
//   plumbing::TempDir dir("idbench-nemesis-test");
//   Fleet fleet(fault_testing::sleepers(dir), 10 * kSecond);     // say ready, then sleep
//   fleet.start(0);  fleet.pause(0);
//   EXPECT_TRUE(fault_testing::stops(fleet.process(0).pid()));   // the kernel says 'T'
//
// Thread safety: thread-compatible; the kernel's /proc is the state.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

#include "fault/fleet.hpp"
#include "plumbing/raw_time.hpp"
#include "plumbing/temp_dir.hpp"

namespace idbench::fault::fault_testing {

// A launcher running `script` under /bin/sh for every node; the node's index and incarnation
// are $1 and $2, its stderr node-K.inc-I.err in `dir`.
inline Fleet::Launcher shell_nodes(const plumbing::TempDir& dir, std::string script) {
  return [path = dir.path(), script = std::move(script)](int node, int incarnation) {
    return NodeLaunch{{"/bin/sh", "-c", script, "node", std::to_string(node),
                       std::to_string(incarnation)},
                      std::nullopt,
                      path + "/node-" + std::to_string(node) + ".inc-" +
                          std::to_string(incarnation) + ".err"};
  };
}

// Nodes that say ready and sleep (exec: the shell's pid is the sleeper's).
inline Fleet::Launcher sleepers(const plumbing::TempDir& dir) {
  return shell_nodes(dir, "echo ready; exec sleep 60");
}

// The process's state letter from /proc/PID/stat ('T': stopped by a signal), or '?' when it
// cannot be read. The command name in parentheses may hold spaces: the state follows the last ')'.
inline char state_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::stringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  const auto close = s.rfind(')');
  return close == std::string::npos || close + 2 >= s.size() ? '?' : s[close + 2];
}

// A signal is delivered asynchronously: the state is polled every 10 ms for up to a second.
inline bool polled(pid_t pid, bool (*wanted)(char)) {
  constexpr std::int64_t kPollNs = 10'000'000;
  for (int i = 0; i < 100; ++i) {
    if (wanted(state_of(pid))) return true;
    plumbing::sleep_until_mono(plumbing::monotonic_ns() + kPollNs);
  }
  return false;
}

// True once the process is stopped by a signal ('T'), within a second.
inline bool stops(pid_t pid) {
  return polled(pid, [](char s) { return s == 'T'; });
}

// True once the process exists and is not stopped, within a second.
inline bool runs(pid_t pid) {
  return polled(pid, [](char s) { return s != 'T' && s != '?'; });
}

}  // namespace idbench::fault::fault_testing
