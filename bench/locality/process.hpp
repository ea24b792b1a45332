// process.hpp — the little process management the real-engine runs need: a private temp
// directory, a server child that cannot outlive us, and a bounded client run.
//
// Every server idbench starts is a child of this process with PR_SET_PDEATHSIG = SIGKILL, so
// even a `kill -9` of idbench leaves no server behind; the normal path stops it with SIGTERM
// (a clean shutdown) from a destructor, so an exception on the way out stops it too.
//
// Thread safety: thread-compatible.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace idbench::locality {

// An OS user to run a child as (PostgreSQL refuses to run as root).
struct RunAs {
  uid_t uid;
  gid_t gid;
};
// The unprivileged user to run servers as when we are root: `nobody`.
std::optional<RunAs> unprivileged_user_if_root();

// mkdtemp under $TMPDIR (or /tmp); removed with everything in it on destruction.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  // Hands the directory to `user` (so a server running as that user can write it).
  void give_to(const RunAs& user) const;

 private:
  std::string path_;
};

// The first executable called `name` on $PATH or in `extra_dirs`; empty when there is none.
std::string find_program(const std::string& name, const std::vector<std::string>& extra_dirs = {});

struct CommandResult {
  int exit_code = -1;  // -1: killed by a signal or by the timeout
  bool timed_out = false;
  std::string out;
  std::string err;
};

// Runs argv to completion with stdin from `stdin_file` (or /dev/null), capturing stdout and
// stderr through files in `scratch_dir`. Killed after `timeout_s`.
CommandResult run_command(const std::vector<std::string>& argv, const std::string& scratch_dir,
                          const std::string& stdin_file = "", int timeout_s = 600,
                          const std::optional<RunAs>& as = std::nullopt);

// A long-running child (a database server); stopped by the destructor.
class ServerProcess {
 public:
  ServerProcess(const std::vector<std::string>& argv, const std::string& log_file,
                const std::optional<RunAs>& as = std::nullopt);
  ~ServerProcess();
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;
  bool running();
  // SIGTERM, then SIGKILL after `grace_s`; waits for the child either way.
  void stop(int grace_s = 30);
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
};

std::string read_file(const std::string& path);

}  // namespace idbench::locality
