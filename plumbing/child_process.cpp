// child_process.cpp — fork/exec with the parent-death signal after the uid change, reaping,
// deadlines, pipes, and the interrupt handler that kills every live child.
#include "plumbing/child_process.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <utility>

#include "plumbing/descendants.hpp"

namespace idbench::plumbing {
namespace {

// Live children, for the signal handler: a pid, whose group it kills, or −pid of a contained
// child's supervisor, which it asks to end everything (descendants.hpp). Lock-free atomics are
// async-signal-safe; a mutex or a vector would not be. 0 = free slot.
constexpr std::size_t kMaxChildren = 256;
std::array<std::atomic<pid_t>, kMaxChildren> live_children{};
static_assert(std::atomic<pid_t>::is_always_lock_free);

volatile sig_atomic_t got_signal = 0;

constexpr int kSignals[3] = {SIGINT, SIGTERM, SIGHUP};

void track(pid_t pid) {
  for (auto& slot : live_children) {
    pid_t expected = 0;
    // Relaxed: the handler only needs to see the pid eventually; a child forked a moment
    // before a signal is killed by the destructor during the unwinding Interrupted causes.
    if (slot.compare_exchange_strong(expected, pid, std::memory_order_relaxed)) return;
  }
}

void untrack(pid_t pid) {
  for (auto& slot : live_children) {
    pid_t expected = pid;
    if (slot.compare_exchange_strong(expected, 0, std::memory_order_relaxed)) return;
  }
}

extern "C" void on_interrupt(int sig) {
  got_signal = sig;
  for (auto& slot : live_children) {
    const pid_t pid = slot.load(std::memory_order_relaxed);
    if (pid > 0) ::kill(-pid, SIGKILL);
    if (pid < 0) ::kill(-pid, kEndSignal);
  }
}

void sleep_ns(std::int64_t ns) {
  timespec ts{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
  ::syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &ts, nullptr);
}

// Milliseconds left to `deadline`, at most `cap`; 0 when it has passed.
int poll_ms(std::int64_t deadline_mono_ns, std::int64_t cap) {
  const std::int64_t left = (deadline_mono_ns - monotonic_ns()) / 1'000'000;
  return static_cast<int>(std::clamp<std::int64_t>(left, 0, cap));
}

// `fd` moved above 0..2 (and close-on-exec), so that wiring the child's stdio can never
// overwrite a descriptor still to be wired (the parent may run with stdout closed).
int above_stdio(int fd) {
  if (fd < 0 || fd > 2) return fd;
  const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
  ::close(fd);
  return moved;
}

[[noreturn]] void fail(const std::string& what) {
  throw Error(fmt::format("{}: {}", what, std::strerror(errno)));
}

// The descriptors of one spawn: what the child gets as 0, 1, 2 and the parent's pipe ends.
struct Wiring {
  int child[3] = {-1, -1, -1};
  int parent[3] = {-1, -1, -1};
  ~Wiring() {
    for (int fd : child)
      if (fd >= 0) ::close(fd);
    for (int fd : parent)
      if (fd >= 0) ::close(fd);
  }
  void wire(int which, const Stdio& s) {
    if (s.kind == Stdio::Kind::pipe) {
      int p[2];
      if (::pipe2(p, O_CLOEXEC) != 0) fail("pipe");
      const bool input = which == 0;
      child[which] = above_stdio(input ? p[0] : p[1]);
      parent[which] = above_stdio(input ? p[1] : p[0]);
      return;
    }
    if (s.kind == Stdio::Kind::inherit) {
      child[which] = ::fcntl(which, F_DUPFD_CLOEXEC, 3);
      if (child[which] >= 0) return;
    }
    const bool file = s.kind == Stdio::Kind::file;
    const char* path = file ? s.path.c_str() : "/dev/null";
    const int flags = which == 0 ? O_RDONLY : O_WRONLY | O_CREAT | O_TRUNC | O_APPEND;
    child[which] = above_stdio(::open(path, flags | O_CLOEXEC, 0644));
    if (child[which] < 0) fail(fmt::format("cannot open {}", path));
  }
};

// Pointers into `strings` with a terminating null, built before fork.
std::vector<char*> c_strings(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (const auto& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

struct Exec {
  std::vector<char*> argv;
  std::vector<char*> env;  // empty: inherit
  const int* fds;
  std::optional<RunAs> run_as;
  pid_t parent;
  const sigset_t* mask;
  const char* exec_failed;  // the message written when execve fails
};

// The child, between fork and execve: async-signal-safe calls only. The order is the header's.
// `parent`: the process that forked it (idbench, or a contained child's supervisor).
[[noreturn]] void become_child(const Exec& e, pid_t parent) {
  ::setpgid(0, 0);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int sig : kSignals) ::sigaction(sig, &dfl, nullptr);
  for (int sig : {SIGPIPE, SIGCHLD, kEndSignal}) ::sigaction(sig, &dfl, nullptr);
  ::sigprocmask(SIG_SETMASK, e.mask, nullptr);
  for (int i = 0; i < 3; ++i)
    if (::dup2(e.fds[i], i) < 0) ::_exit(126);
  if (e.run_as) {
    ::setgroups(0, nullptr);  // fails unprivileged; then setgid/setuid fail too, and say so
    if (::setgid(e.run_as->gid) != 0 || ::setuid(e.run_as->uid) != 0) ::_exit(126);
  }
  // After the uid change, which would clear it (prctl(2)).
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);  // the parent died before prctl took effect
  if (e.env.empty()) {
    ::execv(e.argv[0], e.argv.data());
  } else {
    ::execve(e.argv[0], e.argv.data(), e.env.data());
  }
  [[maybe_unused]] ssize_t n = ::write(2, e.exec_failed, std::strlen(e.exec_failed));
  ::_exit(127);
}

void start_program(const void* e, pid_t supervisor) {
  become_child(*static_cast<const Exec*>(e), supervisor);
}

// Reads one native int from `fd` (a supervisor's report); false at EOF or on an error.
bool read_int(int fd, int& value) {
  ssize_t n;
  while ((n = ::read(fd, &value, sizeof value)) < 0 && errno == EINTR) {
  }
  return n == static_cast<ssize_t>(sizeof value);
}

}  // namespace

bool group_running(pid_t pgid) {
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return false;
  bool found = false;
  while (const dirent* d = ::readdir(proc)) {
    if (d->d_name[0] < '1' || d->d_name[0] > '9') continue;
    const std::string path = std::string("/proc/") + d->d_name + "/stat";
    std::FILE* f = std::fopen(path.c_str(), "re");
    if (f == nullptr) continue;
    char line[512] = {};
    const bool read = std::fgets(line, sizeof line, f) != nullptr;
    std::fclose(f);
    const char* close = read ? std::strrchr(line, ')') : nullptr;
    char state = 0;
    long ppid = 0, group = 0;
    if (close != nullptr && std::sscanf(close + 1, " %c %ld %ld", &state, &ppid, &group) == 3 &&
        group == pgid && state != 'Z' && state != 'X') {
      found = true;
      break;
    }
  }
  ::closedir(proc);
  return found;
}

std::optional<RunAs> unprivileged_user_if_root() {
  if (::geteuid() != 0) return std::nullopt;
  const passwd* pw = ::getpwnam("nobody");
  if (pw == nullptr) throw Error("running as root and there is no user 'nobody' to run servers as");
  return RunAs{pw->pw_uid, pw->pw_gid};
}

std::string find_program(const std::string& name, const std::vector<std::string>& extra_dirs) {
  std::vector<std::string> dirs;
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    for (std::string d; std::getline(ss, d, ':');)
      if (!d.empty()) dirs.push_back(d);
  }
  dirs.insert(dirs.end(), {"/usr/sbin", "/usr/bin", "/sbin"});
  dirs.insert(dirs.end(), extra_dirs.begin(), extra_dirs.end());
  if (name.empty()) return {};
  for (const auto& d : dirs) {
    const std::string candidate = d + "/" + name;
    struct stat st {};  // a directory is "executable" too (searchable): not a program
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        ::access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return {};
}

ChildProcess::ChildProcess(const std::vector<std::string>& argv,
                           const std::vector<std::string>& env, const std::string& stderr_path)
    : ChildProcess(ChildSpec{argv, env, Stdio::pipe(), Stdio::pipe(), Stdio::file(stderr_path),
                             std::nullopt}) {}

ChildProcess::ChildProcess(const ChildSpec& spec) {
  if (spec.argv.empty()) throw Error("no program to run");
  // Everything the child needs is prepared before fork.
  Wiring w;
  w.wire(0, spec.in);
  w.wire(1, spec.out);
  w.wire(2, spec.err);
  const std::string exec_failed = fmt::format("idbench: cannot execute {}\n", spec.argv[0]);
  Exec e{c_strings(spec.argv),
         spec.env ? c_strings(*spec.env) : std::vector<char*>{},
         w.child,
         spec.run_as,
         ::getpid(),
         nullptr,
         exec_failed.c_str()};
  int report[2] = {-1, -1};  // a contained child's supervisor → us (descendants.hpp)
  if (spec.contain) {
    if (::pipe2(report, O_CLOEXEC) != 0) fail("pipe");
    report[0] = above_stdio(report[0]);
    report[1] = above_stdio(report[1]);
  }

  // The interrupt handler must not run in the child before execve (it would kill this
  // child's siblings from a stale copy of the table): block the signals across fork; the
  // child restores default handlers before unblocking them.
  sigset_t block, old_mask;
  sigemptyset(&block);
  for (int sig : kSignals) sigaddset(&block, sig);
  ::sigprocmask(SIG_BLOCK, &block, &old_mask);
  e.mask = &old_mask;
  const pid_t pid = ::fork();
  if (pid == 0 && spec.contain) supervise(e.parent, report[1], start_program, &e);
  if (pid == 0) become_child(e, e.parent);
  const int fork_errno = errno;
  ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  if (report[1] >= 0) ::close(report[1]);
  if (pid < 0) {
    if (report[0] >= 0) ::close(report[0]);
    errno = fork_errno;
    fail("fork");
  }
  // Also set the group from here: whichever runs first, the group exists before we signal it.
  ::setpgid(pid, pid);
  pid_ = reaper_ = pid;
  tracked_ = spec.contain ? -pid : pid;
  track(tracked_);
  if (spec.contain) {
    report_fd_ = report[0];
    int program = 0;
    if (!read_int(report_fd_, program) || program <= 0) {
      kill_and_reap();
      errno = program < 0 ? -program : EAGAIN;
      fail("fork");
    }
    pid_ = program;
  }
  stdin_fd_ = std::exchange(w.parent[0], -1);
  stdout_fd_ = std::exchange(w.parent[1], -1);
  stderr_fd_ = std::exchange(w.parent[2], -1);
}

ChildProcess::~ChildProcess() {
  if (running()) kill_and_reap();
  for (int fd : {stdin_fd_, stdout_fd_, stderr_fd_, report_fd_})
    if (fd >= 0) ::close(fd);
}

void ChildProcess::send_line(const std::string& line) {
  const std::string text = line + "\n";
  // A child that died closes its end: EPIPE must not kill us.
  ::signal(SIGPIPE, SIG_IGN);
  const ssize_t n = stdin_fd_ < 0 ? -1 : ::write(stdin_fd_, text.data(), text.size());
  if (n != static_cast<ssize_t>(text.size())) {
    throw Error(fmt::format("child {} does not read its input: {}", pid_, std::strerror(errno)));
  }
}

void ChildProcess::close_stdin() {
  if (stdin_fd_ >= 0) ::close(stdin_fd_);
  stdin_fd_ = -1;
}

std::optional<std::string> ChildProcess::read_line(std::int64_t deadline_mono_ns) {
  for (;;) {
    // From where the last look stopped: a long line is scanned once, not once per read.
    const std::size_t nl = pending_.find('\n', scanned_);
    if (nl != std::string::npos) {
      std::string line = pending_.substr(0, nl);
      pending_.erase(0, nl + 1);
      scanned_ = 0;
      return line;
    }
    scanned_ = pending_.size();
    if (pending_.size() > kMaxLineBytes) throw LineTooLong();
    const int wait_ms = poll_ms(deadline_mono_ns, 100);
    if (wait_ms <= 0 || stdout_fd_ < 0) return std::nullopt;
    pollfd p{stdout_fd_, POLLIN, 0};
    const int rc = ::poll(&p, 1, wait_ms);
    throw_if_interrupted();
    if (rc < 0 && errno != EINTR) return std::nullopt;
    if (rc <= 0) continue;
    char buf[4096];
    const ssize_t n = ::read(stdout_fd_, buf, sizeof buf);
    if (n <= 0) return std::nullopt;  // EOF: the child closed stdout or died
    pending_.append(buf, static_cast<std::size_t>(n));
  }
}

bool ChildProcess::has_unread_output() {
  if (!pending_.empty()) return true;
  if (stdout_fd_ < 0) return false;
  pollfd p{stdout_fd_, POLLIN, 0};
  if (::poll(&p, 1, 0) <= 0 || (p.revents & POLLIN) == 0) return false;
  char buf[512];
  const ssize_t n = ::read(stdout_fd_, buf, sizeof buf);
  if (n <= 0) return false;  // EOF or an error: nothing unread
  pending_.append(buf, static_cast<std::size_t>(n));
  return true;
}

bool ChildProcess::read_to_end(std::string& out, std::string& err, std::int64_t deadline_mono_ns) {
  out = std::exchange(pending_, {});
  scanned_ = 0;
  int* fds[2] = {&stdout_fd_, &stderr_fd_};
  std::string* sinks[2] = {&out, &err};
  for (;;) {
    pollfd p[2];
    nfds_t n = 0;
    int which[2];
    for (int i = 0; i < 2; ++i) {
      if (*fds[i] < 0) continue;
      p[n] = {*fds[i], POLLIN, 0};
      which[n++] = i;
    }
    if (n == 0) return true;
    const int wait_ms = poll_ms(deadline_mono_ns, 100);
    if (wait_ms <= 0) return false;
    const int rc = ::poll(p, n, wait_ms);
    throw_if_interrupted();
    if (rc < 0 && errno != EINTR) fail("poll");
    for (nfds_t k = 0; rc > 0 && k < n; ++k) {
      if (p[k].revents == 0) continue;
      char buf[4096];
      const ssize_t got = ::read(p[k].fd, buf, sizeof buf);
      if (got > 0) {
        sinks[which[k]]->append(buf, static_cast<std::size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        ::close(*fds[which[k]]);
        *fds[which[k]] = -1;
      }
    }
  }
}

void ChildProcess::signal(int sig) {
  if (!running()) return;
  // A supervisor passes SIGTERM, SIGINT and SIGHUP on to the program (descendants.hpp).
  ::kill(contained() ? reaper_ : -pid_, sig);
}

void ChildProcess::reaped(int raw) {
  // A supervisor reports how the program itself ended; one that could not (killed) reports
  // nothing, and its own status stands.
  if (int program = 0; contained() && read_int(report_fd_, program)) raw = program;
  status_ = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  signalled_ = !WIFEXITED(raw);
  untrack(tracked_);
}

std::optional<int> ChildProcess::wait_until(std::int64_t deadline_mono_ns) {
  while (running()) {
    int raw = 0;
    const pid_t r = ::waitpid(reaper_, &raw, WNOHANG);
    if (r == reaper_) {
      reaped(raw);
      break;
    }
    if (r < 0 && errno != EINTR) {  // not our child any more: nothing left to reap
      status_ = -1;
      untrack(tracked_);
      break;
    }
    if (monotonic_ns() >= deadline_mono_ns) return std::nullopt;
    sleep_ns(1'000'000);
  }
  return status_;
}

int ChildProcess::kill_and_reap() {
  if (!running()) return *status_;
  if (contained()) {
    // The supervisor kills the program and everything below it, then exits. (Not the program
    // by its pid: the supervisor may have reaped it, and the pid may be another's now.)
    ::kill(reaper_, kEndSignal);
  } else {
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);  // in case it had not made its group yet
  }
  int raw = 0;
  while (::waitpid(reaper_, &raw, 0) < 0 && errno == EINTR) {
  }
  reaped(raw);
  // What it left in its group dies too before this returns (at most 10 s: a process stuck in
  // the kernel is not waited for forever).
  for (const std::int64_t until = monotonic_ns() + 10'000'000'000;
       !contained() && group_running(pid_) && monotonic_ns() < until;) {
    sleep_until_mono(monotonic_ns() + 2'000'000);
  }
  return *status_;
}

int ChildProcess::stop(std::int64_t grace_ns, int sig) {
  if (!running()) return *status_;
  ::kill(contained() ? reaper_ : pid_, sig);  // a supervisor passes it on
  if (const auto status = wait_until(monotonic_ns() + grace_ns)) {
    // Whatever it forked and left in its group (a supervisor has ended all that already).
    if (!contained()) ::kill(-pid_, SIGKILL);
    return *status;
  }
  return kill_and_reap();
}

CommandResult run_command(const std::vector<std::string>& argv, const CommandOptions& options) {
  ChildSpec spec{argv,
                 std::nullopt,
                 options.stdin_file.empty() ? Stdio::null() : Stdio::file(options.stdin_file),
                 Stdio::pipe(),
                 Stdio::pipe(),
                 options.run_as};
  ChildProcess child(spec);
  const std::int64_t deadline = monotonic_ns() + options.timeout_ms * 1'000'000;
  CommandResult result;
  result.timed_out = !child.read_to_end(result.out, result.err, deadline) ||
                     !child.wait_until(deadline).has_value();
  const int status = child.kill_and_reap();  // a no-op unless timed out
  if (!result.timed_out && !child.signalled()) result.exit_code = status;
  return result;
}

InterruptGuard::InterruptGuard() {
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  for (int i = 0; i < 3; ++i) ::sigaction(kSignals[i], &sa, &previous_[i]);
}

InterruptGuard::~InterruptGuard() {
  for (int i = 0; i < 3; ++i) ::sigaction(kSignals[i], &previous_[i], nullptr);
}

bool interrupted() { return got_signal != 0; }

void throw_if_interrupted() {
  if (interrupted()) throw Interrupted();
}

std::string read_text_file(const std::string& path, std::size_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  std::string text;
  char buf[4096];
  ssize_t n;
  while (text.size() < max_bytes && (n = ::read(fd, buf, sizeof buf)) > 0) {
    text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return text;
}

}  // namespace idbench::plumbing
