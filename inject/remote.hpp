// remote.hpp — acting on a traced process while one of its threads is in a ptrace-stop: read
// and write its memory, get and set a thread's registers, and make that thread run one system
// call (an injected syscall), then put it back as it was.
//
//   Remote remote(pid, tid);                   // tid: a thread of pid in a ptrace-stop
//   remote.use_syscall_at(vdso_syscall_address);
//   const long address = remote.syscall(SYS_mmap, {0, 4096, ...}, "map the trampoline");
//
// Memory goes through /proc/PID/mem (pread/pwrite), which writes a private mapping the process
// itself cannot write (its r-x code, its vDSO: the kernel copies the page on write).
//
// An injected system call: the thread's registers are saved; rip is set to a `syscall`
// instruction already in the process (its vDSO's), rax and the argument registers to the call,
// orig_rax to -1 (the thread is not in a system call, so no restart logic touches rax or rip on
// the way back to user mode); PTRACE_SINGLESTEP runs that one instruction; rax is the result;
// the registers are restored. The thread is then in a ptrace-stop again (a SIGTRAP
// signal-delivery-stop): whoever resumes it does so as from the stop it was in (with the signal
// it meant to deliver, or 0), and a system call the stop interrupted is restarted as it would
// have been. A signal that arrives during the step is not delivered then; it is sent again
// (tgkill) after the registers are restored, so it is only late.
//
// Errors (idbench::Error) name the pid and the step ("pid 42: map the trampoline: mmap: ...").
//
// Thread safety: one Remote per traced thread, used by its tracer thread (ptrace requires it).
#pragma once

#include <sys/types.h>
#include <sys/user.h>

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace idbench::inject {

class Remote {
 public:
  // Opens /proc/PID/mem; `tid` is the thread that runs injected system calls.
  Remote(pid_t pid, pid_t tid);
  ~Remote();
  Remote(const Remote&) = delete;
  Remote& operator=(const Remote&) = delete;

  pid_t pid() const { return pid_; }

  void read(std::uint64_t address, std::span<std::uint8_t> out, std::string_view step) const;
  std::vector<std::uint8_t> read(std::uint64_t address, std::size_t length,
                                 std::string_view step) const;
  void write(std::uint64_t address, std::span<const std::uint8_t> bytes,
             std::string_view step) const;

  user_regs_struct registers(pid_t tid, std::string_view step) const;
  void set_registers(pid_t tid, const user_regs_struct& regs, std::string_view step) const;

  // Where a `syscall` instruction (0f 05) is in the process: set before the first syscall().
  void use_syscall_at(std::uint64_t address) { syscall_address_ = address; }

  // Runs system call `number` with `args` in thread tid, as described above, and returns its
  // raw result (-errno on failure, as the kernel returns it).
  long syscall(long number, const std::array<std::uint64_t, 6>& args, std::string_view step);

  // One PTRACE_SINGLESTEP of `tid` and the wait for its stop; a signal that stops it instead is
  // kept for resend_signals. Throws when the thread exits or stops for an event.
  void single_step(pid_t tid, std::string_view step);

  // Sends again the signals that arrived during single steps (see above); the destructor does
  // it too.
  void resend_signals();

  // "pid 42: <step>: <what>" as an idbench::Error.
  [[noreturn]] void fail(std::string_view step, std::string_view what) const;

 private:
  pid_t pid_;
  pid_t tid_;
  std::uint64_t syscall_address_ = 0;
  int mem_fd_ = -1;
  std::vector<std::pair<pid_t, int>> deferred_signals_;
};

// The thread's ptrace-stop as the patcher needs to know it.
enum class StopKind {
  kExec,          // PTRACE_EVENT_EXEC: still inside execve, whose return would overwrite rax
  kSyscall,       // a syscall-entry or -exit stop
  kOther,         // a signal-delivery-stop, a group-stop, PTRACE_EVENT_STOP
  kInsideSyscall  // another event stop inside a system call (fork, clone, seccomp, exit)
};
StopKind stop_kind(pid_t tid);

// From a PTRACE_EVENT_EXEC stop to the execve's syscall-exit-stop (PTRACE_SYSCALL, then the
// wait), where a change of the registers holds: nothing of the new program runs.
void leave_exec_stop(pid_t pid, pid_t tid);

}  // namespace idbench::inject
