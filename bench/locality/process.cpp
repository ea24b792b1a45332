#include "bench/locality/process.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "generators/errors.hpp"

namespace idbench::locality {

namespace fs = std::filesystem;

std::optional<RunAs> unprivileged_user_if_root() {
  if (geteuid() != 0) return std::nullopt;
  const passwd* pw = getpwnam("nobody");
  if (pw == nullptr) throw Error("running as root and there is no user 'nobody' to run servers as");
  return RunAs{pw->pw_uid, pw->pw_gid};
}

TempDir::TempDir(const std::string& prefix) {
  const char* base = std::getenv("TMPDIR");
  std::string tmpl = fmt::format("{}/{}XXXXXX", base && *base ? base : "/tmp", prefix);
  if (mkdtemp(tmpl.data()) == nullptr) throw Error(fmt::format("mkdtemp {} failed", tmpl));
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

void TempDir::give_to(const RunAs& user) const {
  if (chown(path_.c_str(), user.uid, user.gid) != 0) {
    throw Error(fmt::format("chown {} failed", path_));
  }
}

std::string find_program(const std::string& name, const std::vector<std::string>& extra_dirs) {
  std::vector<std::string> dirs;
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    for (std::string d; std::getline(ss, d, ':');) dirs.push_back(d);
  }
  dirs.insert(dirs.end(), {"/usr/sbin", "/usr/bin", "/sbin"});
  dirs.insert(dirs.end(), extra_dirs.begin(), extra_dirs.end());
  for (const auto& d : dirs) {
    const std::string candidate = d + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

namespace {

// In the child, between fork and exec: only async-signal-safe calls.
[[noreturn]] void exec_child(char* const* args, const char* in_path, const char* out_path,
                             const char* err_path, const std::optional<RunAs>& as,
                             bool die_with_parent) {
  if (die_with_parent) prctl(PR_SET_PDEATHSIG, SIGKILL);
  int in = open(in_path, O_RDONLY);
  int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
  int err = open(err_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (in < 0 || out < 0 || err < 0) _exit(126);
  dup2(in, 0);
  dup2(out, 1);
  dup2(err, 2);
  if (as) {
    if (setgid(as->gid) != 0 || setuid(as->uid) != 0) _exit(126);
  }
  execv(args[0], args);
  _exit(127);
}

pid_t spawn(const std::vector<std::string>& argv, const std::string& in_path,
            const std::string& out_path, const std::string& err_path,
            const std::optional<RunAs>& as, bool die_with_parent) {
  if (argv.empty()) throw Error("empty command");
  // Built before fork: the child may only make async-signal-safe calls.
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw Error("fork failed");
  if (pid == 0) {
    exec_child(args.data(), in_path.c_str(), out_path.c_str(), err_path.c_str(), as,
               die_with_parent);
  }
  return pid;
}

}  // namespace

CommandResult run_command(const std::vector<std::string>& argv, const std::string& scratch_dir,
                          const std::string& stdin_file, int timeout_s,
                          const std::optional<RunAs>& as) {
  static int counter = 0;
  const std::string out_path = fmt::format("{}/cmd{}.out", scratch_dir, counter);
  const std::string err_path = fmt::format("{}/cmd{}.err", scratch_dir, counter);
  ++counter;
  const pid_t pid =
      spawn(argv, stdin_file.empty() ? "/dev/null" : stdin_file, out_path, err_path, as, true);
  CommandResult result;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  int status = 0;
  for (;;) {
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      result.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (!result.timed_out && WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  result.out = read_file(out_path);
  result.err = read_file(err_path);
  std::error_code ec;
  fs::remove(out_path, ec);
  fs::remove(err_path, ec);
  return result;
}

ServerProcess::ServerProcess(const std::vector<std::string>& argv, const std::string& log_file,
                             const std::optional<RunAs>& as) {
  pid_ = spawn(argv, "/dev/null", log_file, log_file, as, true);
}

ServerProcess::~ServerProcess() { stop(); }

bool ServerProcess::running() {
  if (pid_ <= 0) return false;
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) == pid_) {
    pid_ = -1;
    return false;
  }
  return true;
}

void ServerProcess::stop(int grace_s) {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(grace_s);
  int status = 0;
  while (waitpid(pid_, &status, WNOHANG) != pid_) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  pid_ = -1;
}

}  // namespace idbench::locality
