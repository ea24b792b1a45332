// fsync_stall_nemesis.cpp — a server's background fsync held, as a busy disk (see
// fsync_stall_nemesis.hpp).
#include "real/fsync_stall_nemesis.hpp"

#include <dirent.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "plumbing/raw_time.hpp"

namespace idbench::real {

namespace {

// The state letter of /proc/PID/task/TID/stat ('R', 'S', 'T', 't', 'Z', ...); 0 when it is gone.
char task_state(pid_t pid, pid_t tid) {
  std::ifstream in(fmt::format("/proc/{}/task/{}/stat", pid, tid));
  std::string line;
  if (!std::getline(in, line)) return 0;
  const std::size_t close = line.rfind(')');
  return close == std::string::npos || close + 2 >= line.size() ? 0 : line[close + 2];
}

std::string errno_text() { return std::strerror(errno); }

}  // namespace

pid_t thread_named(pid_t pid, const std::string& name) {
  const std::string dir = fmt::format("/proc/{}/task", pid);
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) throw Error(fmt::format("process {} is gone: no thread {} to hold", pid, name));
  pid_t found = 0;
  while (const dirent* e = ::readdir(d)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    std::ifstream comm(dir + "/" + e->d_name + "/comm");
    std::string line;
    if (std::getline(comm, line) && line == name) {
      found = static_cast<pid_t>(std::stol(e->d_name));
      break;
    }
  }
  ::closedir(d);
  if (found == 0) throw Error(fmt::format("process {} has no thread named {}", pid, name));
  return found;
}

FsyncStallNemesis::~FsyncStallNemesis() {
  try {
    release();
  } catch (...) {  // NOLINT(bugprone-empty-catch): a destructor; the thread goes with its tracer
  }
}

void FsyncStallNemesis::invoke(const fault::FaultStep& step, fault::Timeline& t) {
  const fault::Instant at = step.at.value_or(fault::Instant::now());
  if (step.op == "stall") {
    hold();
  } else if (step.op == "release") {
    release();
  } else if (step.op == "freeze") {
    freeze();
  } else {
    throw std::logic_error(fmt::format("the fsync nemesis does not play '{}'", step.op));
  }
  t.record_at(at, fault::kNoNode, step.kind, step.what);
}

void FsyncStallNemesis::teardown(fault::Timeline& /*t*/) { release(); }

void FsyncStallNemesis::hold() {
  if (tid_ != 0) throw std::logic_error("the fsync nemesis already holds a thread");
  const pid_t tid = thread_named(server_.pid(), thread_);
  // EXITKILL: should idbench die, the server dies with it rather than keep a held thread.
  if (::ptrace(PTRACE_SEIZE, tid, nullptr, PTRACE_O_EXITKILL) != 0) {
    throw Error(fmt::format("cannot hold thread {} ({}): ptrace(PTRACE_SEIZE): {}", tid, thread_,
                            errno_text()));
  }
  tid_ = tid;
  if (::ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr) != 0) {
    const std::string why = errno_text();
    release();
    throw Error(
        fmt::format("cannot hold thread {} ({}): ptrace(PTRACE_INTERRUPT): {}", tid, thread_, why));
  }
  // Until its interrupt stop; a signal meant for it on the way is passed on.
  for (;;) {
    int status = 0;
    if (::waitpid(tid, &status, __WALL) != tid) {
      const std::string why = errno_text();
      tid_ = 0;
      throw Error(fmt::format("thread {} ({}) ended while being held: {}", tid, thread_, why));
    }
    if (!WIFSTOPPED(status)) {
      tid_ = 0;
      throw Error(fmt::format("thread {} ({}) ended while being held", tid, thread_));
    }
    if ((status >> 16) == PTRACE_EVENT_STOP) return;
    ::ptrace(PTRACE_CONT, tid, nullptr, WSTOPSIG(status));
  }
}

void FsyncStallNemesis::release() {
  if (tid_ == 0) return;
  const pid_t tid = tid_;
  tid_ = 0;
  if (::ptrace(PTRACE_DETACH, tid, nullptr, nullptr) == 0) return;
  // It died held (its server killed): collect its end, which its tracer owes the kernel.
  const std::int64_t until = plumbing::monotonic_ns() + 5'000'000'000;
  int status = 0;
  while (::waitpid(tid, &status, __WALL | WNOHANG) == 0 && plumbing::monotonic_ns() < until) {
    plumbing::sleep_until_mono(plumbing::monotonic_ns() + 1'000'000);
  }
}

void FsyncStallNemesis::freeze() {
  if (tid_ == 0) throw std::logic_error("the fsync nemesis holds no thread to hand to a crash");
  const pid_t pid = server_.pid();
  if (::kill(pid, SIGSTOP) != 0) {
    throw Error(fmt::format("cannot stop process {}: {}", pid, errno_text()));
  }
  // The main thread stopped: from now on the server writes nothing more.
  const std::int64_t until = plumbing::monotonic_ns() + 5'000'000'000;
  while (task_state(pid, pid) != 'T') {
    if (plumbing::monotonic_ns() > until) {
      throw Error(fmt::format("process {} did not stop within 5 s of SIGSTOP", pid));
    }
    plumbing::sleep_until_mono(plumbing::monotonic_ns() + 1'000'000);
  }
  release();  // into the group stop: it stays stopped with the rest
}

}  // namespace idbench::real
