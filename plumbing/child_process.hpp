// child_process.hpp — the one child-process type: a program idbench starts and never leaves behind.
//
//   ChildSpec spec;                     // or ChildProcess(argv, env, stderr_path): pipes
//   spec.argv = {bin, "--node", "3"};
//   spec.in = spec.out = Stdio::pipe();
//   spec.err = Stdio::file(dir + "/node.err");
//   ChildProcess node(spec);
//   node.send_line("go");
//   auto line = node.read_line(monotonic_ns() + 1'000'000'000);   // nullopt at EOF/deadline
//   node.stop(5'000'000'000);                                      // SIGTERM, then SIGKILL
//
//   CommandOptions opt;
//   opt.timeout_ms = 180'000;
//   CommandResult r = run_command({"/usr/bin/initdb", "-D", dir}, opt);
//
// Between fork and execve the child, in this order:
//   1. becomes its own process group, so a signal reaches it and everything it forks;
//   2. gets default signal dispositions and the parent's signal mask back;
//   3. connects stdin, stdout, stderr (files are opened by the parent, before any uid change);
//   4. drops to `run_as` (setgroups, setgid, setuid) when given;
//   5. sets PR_SET_PDEATHSIG = SIGKILL. Only now: a change of uid or gid clears it (prctl(2)),
//      which is how a postgres run as `nobody` outlived a killed idbench;
//   6. checks that getppid() is still the pid recorded before fork: a parent that died before
//      step 5 would never send the signal, so the child exits instead;
//   7. execs.
// The destructor kills (SIGKILL to the group) and reaps a child still running.
// PR_SET_PDEATHSIG fires when the *thread* that forked exits: fork from a thread that outlives
// the child.
//
// A contained child (`ChildSpec::contain`, what an --exec program is) leaves nothing behind:
// a supervisor process stands between us and it (descendants.hpp) and, when it ends, when we
// end it, or when we die (even by SIGKILL), kills every process it started, in its group or
// out of it (setsid), and reaps them. pid() is the program's; its exit status is reported by
// the supervisor once all is gone, so wait_until() returning means nothing of it is left.
// signal() reaches the program only for SIGTERM, SIGINT and SIGHUP (passed on).
//
// SIGINT/SIGTERM/SIGHUP received while an `InterruptGuard` is alive SIGKILL every live child's
// group at once (from the handler) and make `interrupted()` true; the command then unwinds with
// `Interrupted` (exit 130), so destructors remove its temp dirs.
//
// All deadlines are CLOCK_MONOTONIC nanoseconds (`monotonic_ns()`, raw_time.hpp), read by a raw
// system call so that libfaketime, if preloaded, never sees them.
//
// Thread safety: a ChildProcess is thread-compatible; `interrupted()` is async-signal-safe.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "plumbing/error.hpp"
#include "plumbing/raw_time.hpp"  // monotonic_ns(): the clock of every deadline here

namespace idbench::plumbing {

// The longest line read_line() reads: a child printing more without a newline is broken (a
// device, a loop), and waiting for the rest would hold it all in memory.
inline constexpr std::size_t kMaxLineBytes = std::size_t{1} << 20;

// read_line() met more than kMaxLineBytes without a newline.
class LineTooLong : public Error {
 public:
  LineTooLong() : Error("a line over 1 MiB") {}
};

// An OS user to run a child as (PostgreSQL refuses to run as root).
struct RunAs {
  uid_t uid;
  gid_t gid;
};
// `nobody` when this process is root (a server that refuses root runs as it); else nullopt.
// Throws Error when root and there is no `nobody`.
std::optional<RunAs> unprivileged_user_if_root();

// The first executable regular file called `name` on $PATH, /usr/sbin, /usr/bin, /sbin or
// `extra_dirs`; empty when there is none.
std::string find_program(const std::string& name, const std::vector<std::string>& extra_dirs = {});

// Where one of the child's standard streams goes.
struct Stdio {
  enum class Kind { null, pipe, file, inherit };
  Kind kind = Kind::null;
  std::string path;  // Kind::file: stdin reads it; stdout/stderr truncate and append to it
  static Stdio null() { return {}; }
  static Stdio pipe() { return {Kind::pipe, {}}; }
  static Stdio file(std::string p) { return {Kind::file, std::move(p)}; }
  // The same stream as ours (an external generator's stderr passes through); /dev/null when
  // ours is closed.
  static Stdio inherit() { return {Kind::inherit, {}}; }
};

struct ChildSpec {
  std::vector<std::string> argv;                // argv[0] is the executable's path
  std::optional<std::vector<std::string>> env;  // the complete environment; nullopt: ours
  Stdio in, out, err;
  std::optional<RunAs> run_as;
  bool contain = false;  // every descendant ends with it (see above)
};

class ChildProcess {
 public:
  // Throws Error when a pipe or file cannot be opened or fork fails. An execve that fails
  // shows as exit status 127 (and a line on the child's stderr).
  explicit ChildProcess(const ChildSpec& spec);
  // stdin and stdout piped to this process, stderr to `stderr_path` (what chaos nodes use).
  ChildProcess(const std::vector<std::string>& argv, const std::vector<std::string>& env,
               const std::string& stderr_path);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // The program's pid (for a contained child, not the supervisor's).
  pid_t pid() const { return pid_; }
  // False once the child has been reaped (by wait_until, try_wait, stop or kill_and_reap).
  bool running() const { return !status_.has_value(); }
  // True when the reaped child was ended by a signal (its status is then 128 + signal).
  bool signalled() const { return signalled_; }

  // Writes one line to the piped stdin; throws Error when the child does not read it.
  void send_line(const std::string& line);
  // Closes the piped stdin (the child sees EOF).
  void close_stdin();
  // One line from the piped stdout without its newline; nullopt at EOF or the deadline.
  // Throws LineTooLong past kMaxLineBytes without a newline, Interrupted when a signal arrived
  // (see InterruptGuard).
  std::optional<std::string> read_line(std::int64_t deadline_mono_ns);
  // True when the piped stdout holds output not yet read as lines (buffered here, or waiting
  // in the pipe now); never blocks. EOF is not output.
  bool has_unread_output();
  // Reads the piped stdout and stderr (either may be unpiped) to EOF; false at the deadline.
  // Throws Interrupted when a signal arrived.
  bool read_to_end(std::string& out, std::string& err, std::int64_t deadline_mono_ns);

  // Sends `sig` to the child's process group (contained: see above).
  void signal(int sig);
  // The exit status (or 128 + signal) once the child ends; nullopt at the deadline.
  std::optional<int> wait_until(std::int64_t deadline_mono_ns);
  // The status if the child has ended (reaping it), else nullopt; never blocks.
  std::optional<int> try_wait() { return wait_until(0); }
  // SIGKILL to the group (contained: to everything it started) and reap; returns the status.
  int kill_and_reap();
  // A server's shutdown: `sig` (SIGTERM) to the child itself, which stops its own children;
  // after `grace_ns` SIGKILL to the whole group. Returns the status.
  int stop(std::int64_t grace_ns, int sig = SIGTERM);

 private:
  void reaped(int raw_status);
  bool contained() const { return report_fd_ >= 0; }

  pid_t pid_ = -1;
  pid_t reaper_ = -1;   // what we wait for: the child, or a contained child's supervisor
  pid_t tracked_ = 0;   // its entry in the interrupt handler's table (−supervisor)
  int report_fd_ = -1;  // a contained child's supervisor reports here
  int stdin_fd_ = -1;
  int stdout_fd_ = -1;
  int stderr_fd_ = -1;
  std::string pending_;      // stdout read but not yet returned as a line
  std::size_t scanned_ = 0;  // how much of pending_ is known to hold no newline
  std::optional<int> status_;
  bool signalled_ = false;
};

struct CommandResult {
  int exit_code = -1;  // the exit status; -1 when killed by a signal or by the timeout
  bool timed_out = false;
  std::string out;
  std::string err;
};

struct CommandOptions {
  std::string stdin_file;  // empty: /dev/null
  std::int64_t timeout_ms = 600'000;
  std::optional<RunAs> run_as;
};

// Runs argv to completion, capturing stdout and stderr; killed (the whole group) at the
// timeout. Throws Error when it cannot start, Interrupted on a signal.
// Whether a process of group `pgid` is still running (a zombie is not): a SIGKILL to a group is
// delivered at once, but its members exit one by one. A PostgreSQL restarted while the killed
// postmaster's backends were still exiting found their shared memory still attached and
// refused to start; kill_and_reap waits until this is false.
bool group_running(pid_t pgid);

CommandResult run_command(const std::vector<std::string>& argv, const CommandOptions& options = {});

// Thrown when the run is interrupted by a signal; the command exits 130.
class Interrupted : public Error {
 public:
  Interrupted() : Error("interrupted") {}
};

// Installs the SIGINT/SIGTERM/SIGHUP handlers for its lifetime (restoring the previous ones;
// guards may nest).
class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

 private:
  struct sigaction previous_[3];  // SIGINT, SIGTERM, SIGHUP as they were
};

bool interrupted();
// Throws Interrupted when a signal arrived.
void throw_if_interrupted();

// Reads a whole small file (a child's stderr, a server log); empty when missing.
std::string read_text_file(const std::string& path, std::size_t max_bytes = 1 << 20);

}  // namespace idbench::plumbing
