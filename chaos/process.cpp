#include "chaos/process.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>

#include "chaos/raw_time.hpp"

namespace idbench::chaos {
namespace {

// Live children, for the signal handler. Lock-free atomics are async-signal-safe; a mutex or
// a vector would not be. 0 = free slot.
constexpr std::size_t kMaxChildren = 256;
std::array<std::atomic<pid_t>, kMaxChildren> live_children{};
static_assert(std::atomic<pid_t>::is_always_lock_free);

volatile sig_atomic_t got_signal = 0;

void track(pid_t pid) {
  for (auto& slot : live_children) {
    pid_t expected = 0;
    // Relaxed: the handler only needs to see the pid eventually; a child forked a moment
    // before a signal is also killed by PDEATHSIG when the driver exits.
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
  }
}

struct sigaction previous[3];
constexpr int kSignals[3] = {SIGINT, SIGTERM, SIGHUP};

}  // namespace

ChildProcess::ChildProcess(const std::vector<std::string>& argv,
                           const std::vector<std::string>& env, const std::string& stderr_path) {
  // Everything the child needs is prepared before fork: between fork and execve only
  // async-signal-safe calls are allowed.
  std::vector<char*> cargv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  std::vector<char*> cenv;
  for (const auto& e : env) cenv.push_back(const_cast<char*>(e.c_str()));
  cenv.push_back(nullptr);

  int in[2];
  int out[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) {
    throw Error(fmt::format("pipe: {}", std::strerror(errno)));
  }
  const int err_fd = ::open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (err_fd < 0)
    throw Error(fmt::format("cannot create {}: {}", stderr_path, std::strerror(errno)));
  const pid_t parent = ::getpid();

  // The interrupt handler must not run in the child between fork and execve (it would kill
  // this child's siblings from a stale copy of the table): block the signals across fork and
  // restore default handlers in the child before unblocking them.
  sigset_t block;
  sigset_t old_mask;
  sigemptyset(&block);
  for (int sig : kSignals) sigaddset(&block, sig);
  ::sigprocmask(SIG_BLOCK, &block, &old_mask);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // the driver died before prctl took effect
    ::setpgid(0, 0);
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    for (int sig : kSignals) ::sigaction(sig, &dfl, nullptr);
    ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    ::dup2(err_fd, 2);
    ::execve(cargv[0], cargv.data(), cenv.data());
    const char msg[] = "idbench chaos: execve of the node binary failed\n";
    [[maybe_unused]] ssize_t n = ::write(2, msg, sizeof msg - 1);
    ::_exit(127);
  }
  ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  if (pid < 0) throw Error(fmt::format("fork: {}", std::strerror(errno)));
  // Also set the group from here: whichever of the two runs first, the group exists before
  // the driver signals it.
  ::setpgid(pid, pid);
  pid_ = pid;
  track(pid);
  ::close(in[0]);
  ::close(out[1]);
  ::close(err_fd);
  stdin_fd_ = in[1];
  stdout_fd_ = out[0];
}

ChildProcess::~ChildProcess() {
  if (running()) kill_and_reap();
  if (stdin_fd_ >= 0) ::close(stdin_fd_);
  if (stdout_fd_ >= 0) ::close(stdout_fd_);
}

void ChildProcess::send_line(const std::string& line) {
  const std::string text = line + "\n";
  // A child that died closes its end: EPIPE must not kill the driver.
  ::signal(SIGPIPE, SIG_IGN);
  const ssize_t n = ::write(stdin_fd_, text.data(), text.size());
  if (n != static_cast<ssize_t>(text.size())) {
    throw Error(fmt::format("node {} does not read its commands: {}", pid_, std::strerror(errno)));
  }
}

std::optional<std::string> ChildProcess::read_line(std::int64_t deadline_mono_ns) {
  for (;;) {
    const std::size_t nl = pending_.find('\n');
    if (nl != std::string::npos) {
      std::string line = pending_.substr(0, nl);
      pending_.erase(0, nl + 1);
      return line;
    }
    const std::int64_t left_ms = (deadline_mono_ns - mono_ns()) / 1'000'000;
    if (left_ms <= 0) return std::nullopt;
    pollfd p{stdout_fd_, POLLIN, 0};
    const int rc = ::poll(&p, 1, static_cast<int>(std::min<std::int64_t>(left_ms, 100)));
    throw_if_interrupted();
    if (rc < 0 && errno != EINTR) return std::nullopt;
    if (rc <= 0) continue;
    char buf[512];
    const ssize_t n = ::read(stdout_fd_, buf, sizeof buf);
    if (n <= 0) return std::nullopt;  // EOF: the child closed stdout or died
    pending_.append(buf, static_cast<std::size_t>(n));
  }
}

void ChildProcess::signal(int sig) {
  if (running()) ::kill(-pid_, sig);
}

void ChildProcess::reaped(int raw) {
  status_ = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  untrack(pid_);
}

std::optional<int> ChildProcess::wait_until(std::int64_t deadline_mono_ns) {
  while (running()) {
    int raw = 0;
    const pid_t r = ::waitpid(pid_, &raw, WNOHANG);
    if (r == pid_) {
      reaped(raw);
      break;
    }
    if (r < 0 && errno != EINTR) {
      status_ = -1;
      untrack(pid_);
      break;
    }
    if (mono_ns() >= deadline_mono_ns) return std::nullopt;
    sleep_until_mono(mono_ns() + 1'000'000);
  }
  return status_;
}

int ChildProcess::kill_and_reap() {
  if (!running()) return *status_;
  ::kill(-pid_, SIGKILL);
  ::kill(pid_, SIGKILL);  // in case it had not set its group yet
  int raw = 0;
  while (::waitpid(pid_, &raw, 0) < 0 && errno == EINTR) {
  }
  reaped(raw);
  return *status_;
}

InterruptGuard::InterruptGuard() {
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  for (int i = 0; i < 3; ++i) ::sigaction(kSignals[i], &sa, &previous[i]);
}

InterruptGuard::~InterruptGuard() {
  for (int i = 0; i < 3; ++i) ::sigaction(kSignals[i], &previous[i], nullptr);
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

}  // namespace idbench::chaos
