// postgres_test_support.hpp — for tests only: the SysV segment a PostgreSQL data directory's
// postmaster made, whether a segment is still there, and a run killed with SIGKILL.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/shm.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

namespace idbench::plumbing {

// The segment postmaster.pid names (its 7th line: key, then shmid); -1 without one.
inline int segment_named_in(const std::string& data_dir) {
  std::ifstream in(data_dir + "/postmaster.pid");
  std::string line;
  for (int i = 0; i < 7 && std::getline(in, line); ++i) {
  }
  std::istringstream fields(line);
  long long key = 0;
  int shmid = -1;
  return fields >> key >> shmid ? shmid : -1;
}

inline bool segment_exists(int shmid) {
  shmid_ds ds{};
  return ::shmctl(shmid, IPC_STAT, &ds) == 0;
}

// What a run killed with SIGKILL left: its pid and its server's segment (-1: it did not start).
struct KilledRun {
  pid_t pid = -1;
  int shmid = -1;
};

// Forks a run that calls `start(told)`: it starts a server and calls told(the segment its
// postmaster.pid names), where the run waits, its server alive. Then kills the run with
// SIGKILL (its server follows: parent-death signal) and reaps it. The run never returns into
// the test binary, even when `start` throws.
template <class Start>
KilledRun run_killed_with_sigkill(Start start) {
  int ready[2];
  if (::pipe2(ready, O_CLOEXEC) != 0) return {};
  const pid_t run = ::fork();
  if (run == 0) {
    const auto told = [&](int shmid) {
      (void)::write(ready[1], &shmid, sizeof shmid);
      for (;;) ::pause();
    };
    try {
      start(told);
    } catch (...) {
    }
    ::_exit(1);  // no segment told: the parent reads none
  }
  ::close(ready[1]);
  KilledRun killed{run, -1};
  if (run < 0 || ::read(ready[0], &killed.shmid, sizeof killed.shmid) != sizeof killed.shmid) {
    killed.shmid = -1;
  }
  ::close(ready[0]);
  if (run > 0) {
    ::kill(run, SIGKILL);
    ::waitpid(run, nullptr, 0);
  }
  return killed;
}

}  // namespace idbench::plumbing
