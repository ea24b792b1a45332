// process.hpp — child processes the driver owns, and never leaves behind.
//
// A child is started with fork + execve. Between the two it
//   * asks the kernel to SIGKILL it when the driver dies (PR_SET_PDEATHSIG), and checks the
//     driver did not die already, so a killed test or driver takes its nodes with it;
//   * becomes its own process group, so SIGSTOP/SIGCONT/SIGKILL reach exactly it.
// The destructor kills and reaps a child still running. SIGINT/SIGTERM/SIGHUP received while
// an `InterruptGuard` is alive kill every live child at once (from the handler) and make
// `interrupted()` true; the driver then unwinds with `Interrupted`, which removes its files.
//
// The driver is single-threaded: PR_SET_PDEATHSIG fires when the *thread* that forked exits,
// so children must be forked from a thread that outlives them.
//
// Thread safety: a ChildProcess is thread-compatible; `interrupted()` is async-signal-safe.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "generators/errors.hpp"

namespace idbench::chaos {

// Thrown when the run is interrupted by a signal; the command exits 130.
class Interrupted : public Error {
 public:
  Interrupted() : Error("interrupted") {}
};

class ChildProcess {
 public:
  // argv[0] is the executable's path; `env` the complete environment. The child's stdin and
  // stdout are pipes to this process; its stderr goes to `stderr_path`.
  ChildProcess(const std::vector<std::string>& argv, const std::vector<std::string>& env,
               const std::string& stderr_path);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  bool running() const { return !status_.has_value(); }

  void send_line(const std::string& line);
  // One line from the child's stdout without its newline; nullopt at EOF or the deadline
  // (CLOCK_MONOTONIC ns).
  std::optional<std::string> read_line(std::int64_t deadline_mono_ns);
  // Sends `sig` to the child's process group.
  void signal(int sig);
  // The exit status (or 128 + signal) once the child ends; nullopt at the deadline.
  std::optional<int> wait_until(std::int64_t deadline_mono_ns);
  // SIGKILL and reap; returns the status.
  int kill_and_reap();

 private:
  void reaped(int raw_status);

  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  int stdout_fd_ = -1;
  std::string pending_;  // stdout read but not yet returned as a line
  std::optional<int> status_;
};

// Installs the SIGINT/SIGTERM/SIGHUP handlers for its lifetime (restoring the previous ones).
class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
};

bool interrupted();
// Throws Interrupted when a signal arrived.
void throw_if_interrupted();

// Reads a whole small file (a child's stderr, a messages file); empty when missing.
std::string read_text_file(const std::string& path, std::size_t max_bytes = 1 << 20);

}  // namespace idbench::chaos
