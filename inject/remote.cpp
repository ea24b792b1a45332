// remote.cpp — a traced process's memory, registers and injected system calls (remote.hpp).
#include "inject/remote.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "plumbing/error.hpp"

namespace idbench::inject {

namespace {

// A stop of `tid` after it was resumed: the raw wait status, retried on EINTR.
int wait_for(pid_t tid) {
  int status = 0;
  while (::waitpid(tid, &status, __WALL) < 0) {
    if (errno != EINTR) return -1;
  }
  return status;
}

std::string describe_status(int status) {
  if (WIFEXITED(status)) return fmt::format("it exited with status {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return fmt::format("it was killed by signal {}", WTERMSIG(status));
  if (WIFSTOPPED(status)) {
    return fmt::format("it stopped with signal {} (event {})", WSTOPSIG(status), status >> 16);
  }
  return fmt::format("wait status {:#x}", status);
}

}  // namespace

Remote::Remote(pid_t pid, pid_t tid) : pid_(pid), tid_(tid) {
  mem_fd_ = ::open(fmt::format("/proc/{}/mem", pid).c_str(), O_RDWR | O_CLOEXEC);
  if (mem_fd_ < 0) fail("open its memory", std::strerror(errno));
}

Remote::~Remote() {
  resend_signals();
  ::close(mem_fd_);
}

void Remote::fail(std::string_view step, std::string_view what) const {
  throw Error(fmt::format("pid {}: {}: {}", pid_, step, what));
}

void Remote::read(std::uint64_t address, std::span<std::uint8_t> out, std::string_view step) const {
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t n =
        ::pread(mem_fd_, out.data() + done, out.size() - done, static_cast<off_t>(address + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      fail(step, fmt::format("reading {} bytes at {:#x}: {}", out.size(), address,
                             n == 0 ? "end of its memory" : std::strerror(errno)));
    }
    done += static_cast<std::size_t>(n);
  }
}

std::vector<std::uint8_t> Remote::read(std::uint64_t address, std::size_t length,
                                       std::string_view step) const {
  std::vector<std::uint8_t> bytes(length);
  read(address, bytes, step);
  return bytes;
}

void Remote::write(std::uint64_t address, std::span<const std::uint8_t> bytes,
                   std::string_view step) const {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::pwrite(mem_fd_, bytes.data() + done, bytes.size() - done,
                               static_cast<off_t>(address + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      fail(step, fmt::format("writing {} bytes at {:#x}: {}", bytes.size(), address,
                             n == 0 ? "end of its memory" : std::strerror(errno)));
    }
    done += static_cast<std::size_t>(n);
  }
}

user_regs_struct Remote::registers(pid_t tid, std::string_view step) const {
  user_regs_struct regs{};
  if (::ptrace(PTRACE_GETREGS, tid, nullptr, &regs) != 0) {
    fail(step, fmt::format("PTRACE_GETREGS of thread {}: {}", tid, std::strerror(errno)));
  }
  return regs;
}

void Remote::set_registers(pid_t tid, const user_regs_struct& regs, std::string_view step) const {
  if (::ptrace(PTRACE_SETREGS, tid, nullptr, &regs) != 0) {
    fail(step, fmt::format("PTRACE_SETREGS of thread {}: {}", tid, std::strerror(errno)));
  }
}

void Remote::single_step(pid_t tid, std::string_view step) {
  // A signal other than the step's SIGTRAP stops the thread before the instruction runs (the
  // kernel checks for signals on the way to user mode): keep it and step again.
  for (int attempt = 0; attempt < 16; ++attempt) {
    if (::ptrace(PTRACE_SINGLESTEP, tid, nullptr, nullptr) != 0) {
      fail(step, fmt::format("PTRACE_SINGLESTEP of thread {}: {}", tid, std::strerror(errno)));
    }
    const int status = wait_for(tid);
    if (status < 0) fail(step, fmt::format("waiting for thread {}: {}", tid, std::strerror(errno)));
    if (!WIFSTOPPED(status) || (status >> 16) != 0) {
      fail(step, fmt::format("thread {} did not stop after one instruction: {}", tid,
                             describe_status(status)));
    }
    if (WSTOPSIG(status) == SIGTRAP) return;
    deferred_signals_.emplace_back(tid, WSTOPSIG(status));
  }
  fail(step, fmt::format("thread {} kept stopping for signals instead of stepping", tid));
}

long Remote::syscall(long number, const std::array<std::uint64_t, 6>& args, std::string_view step) {
  if (syscall_address_ == 0) fail(step, "no syscall instruction to run a system call with");
  const user_regs_struct saved = registers(tid_, step);
  user_regs_struct regs = saved;
  regs.rip = syscall_address_;
  regs.rax = static_cast<std::uint64_t>(number);
  regs.orig_rax = static_cast<std::uint64_t>(-1);
  regs.rdi = args[0];
  regs.rsi = args[1];
  regs.rdx = args[2];
  regs.r10 = args[3];
  regs.r8 = args[4];
  regs.r9 = args[5];
  set_registers(tid_, regs, step);
  try {
    single_step(tid_, step);
  } catch (...) {
    ::ptrace(PTRACE_SETREGS, tid_, nullptr, &saved);  // best effort, then the first error
    throw;
  }
  const user_regs_struct after = registers(tid_, step);
  set_registers(tid_, saved, step);
  if (after.rip != syscall_address_ + 2) {
    fail(step, fmt::format("the injected system call {} left rip at {:#x}, not after the syscall "
                           "instruction at {:#x}",
                           number, after.rip, syscall_address_));
  }
  return static_cast<long>(after.rax);
}

void Remote::resend_signals() {
  for (const auto& [tid, sig] : deferred_signals_) ::syscall(SYS_tgkill, pid_, tid, sig);
  deferred_signals_.clear();
}

StopKind stop_kind(pid_t tid) {
  siginfo_t info{};
  if (::ptrace(PTRACE_GETSIGINFO, tid, nullptr, &info) != 0) return StopKind::kOther;  // group-stop
  if (info.si_signo != SIGTRAP) return StopKind::kOther;
  const int event = info.si_code >> 8;
  if (event == PTRACE_EVENT_EXEC) return StopKind::kExec;
  if (event == PTRACE_EVENT_STOP) return StopKind::kOther;
  if (event != 0) return StopKind::kInsideSyscall;
  if (info.si_code == SIGTRAP || info.si_code == (SIGTRAP | 0x80)) return StopKind::kSyscall;
  return StopKind::kOther;
}

void leave_exec_stop(pid_t pid, pid_t tid) {
  const auto fail = [&](std::string_view what) {
    throw Error(fmt::format("pid {}: leave the exec stop: {}", pid, what));
  };
  if (::ptrace(PTRACE_SYSCALL, tid, nullptr, nullptr) != 0) {
    fail(fmt::format("PTRACE_SYSCALL: {}", std::strerror(errno)));
  }
  const int status = wait_for(tid);
  if (status < 0) fail(fmt::format("waiting: {}", std::strerror(errno)));
  if (!WIFSTOPPED(status) || (WSTOPSIG(status) & 0x7f) != SIGTRAP || (status >> 16) != 0) {
    fail(fmt::format("expected the execve's syscall-exit-stop, but {}", describe_status(status)));
  }
}

}  // namespace idbench::inject
