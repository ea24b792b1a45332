// syscall_trap.hpp — the raw clock system calls of a launched process, which no vDSO patch sees:
// the seccomp filter that stops them in the tracer, the page the tracer reads the faked clock
// from, and the rewrite of what each call returned.
//
//   const ClockFilter filter;                   // built before fork: installing allocates nothing
//   ... in the child: prctl(PR_SET_NO_NEW_PRIVS), filter.install(), exec ...
//   ... at a seccomp stop: clock_call_of(event message) names the call; PTRACE_SYSCALL ...
//   ... at its syscall-exit stop: fake_clock_result(tid, call, page.view())
//
// The filter (x86-64 system calls only; another architecture's, an i386 int 0x80 from a 64-bit
// process, passes untouched):
//   clock_gettime with args[2] == plumbing::kHarnessClockMark   allowed: the harness's own
//                              true-time read inside a traced process, its oracle, never faked;
//   clock_gettime of a clock idbench_fake_ns can move (REALTIME, REALTIME_COARSE, TAI,
//                              MONOTONIC, MONOTONIC_RAW, MONOTONIC_COARSE, BOOTTIME)   traced;
//   gettimeofday, time         traced;
//   everything else            allowed (a CPU-time clock is never faked: trapping it would
//                              only cost the program two stops per read).
// A traced call is SECCOMP_RET_TRACE with its ClockCall as the data, so the tracer tells its
// own stops from another filter's. A filter cannot be removed: once no tracer is left, a traced
// call fails with ENOSYS. That is why it is installed only in a process the tracer launches
// (which ends with the tracer), never in one it attaches to.
//
// The rewrite applies clock_page.h's idbench_fake_ns to the value the kernel wrote, the same
// function the vDSO trampoline applies, so the two paths agree. A failed call (rax < 0) is left
// as it is; a monotonic clock moves only when the page says so.
//
// Thread safety: ClockFilter and ClockPageMap are immutable after construction;
// fake_clock_result must run on the thread that traces `tid` (ptrace requests do).
#pragma once

#include <linux/filter.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "inject/clock_page.h"

namespace idbench::inject {

// A clock call the filter traps, as SECCOMP_RET_DATA (16 bits): distinct from small numbers
// another filter is likely to use.
enum class ClockCall : std::uint16_t {
  none = 0,
  clock_gettime = 0x1d01,
  gettimeofday = 0x1d02,
  time = 0x1d03,
};

// The call named by a seccomp stop's event message (PTRACE_GETEVENTMSG); none when the stop
// came from another filter.
ClockCall clock_call_of(unsigned long event_message);

class ClockFilter {
 public:
  // `let_marked_reads_pass` false is a planted defect, for the tests: the harness's own reads
  // are trapped and faked like any other.
  explicit ClockFilter(bool let_marked_reads_pass = true);
  ClockFilter(const ClockFilter&) = delete;
  ClockFilter& operator=(const ClockFilter&) = delete;

  // Installs the filter in the calling thread (inherited by its later threads and children);
  // PR_SET_NO_NEW_PRIVS must be set (or the caller have CAP_SYS_ADMIN). Async-signal-safe:
  // returns 0 or an errno.
  int install() const noexcept;
  const std::vector<sock_filter>& code() const { return code_; }

 private:
  std::vector<sock_filter> code_;
  sock_fprog program_{};
};

// The faked clock's page, mapped read-only by the tracer (it reads the view at each trapped
// call). `path` is a file that maps it, e.g. /proc/<idbench pid>/fd/<n>; the mapping keeps the
// page alive whatever becomes of that path. Throws Error (one line) when `path` cannot be
// opened or is not an initialised clock page.
class ClockPageMap {
 public:
  explicit ClockPageMap(const std::string& path);
  ~ClockPageMap();
  ClockPageMap(const ClockPageMap&) = delete;
  ClockPageMap& operator=(const ClockPageMap&) = delete;

  idbench_clock_view view() const { return idbench_clock_read(page_); }
  // The path a traced process opens to map the page: /proc/<this pid>/fd/<our fd>.
  std::string path_for_targets() const;

 private:
  int fd_ = -1;
  std::size_t length_ = 0;
  const idbench_clock_page* page_ = nullptr;
};

// At the syscall-exit stop of `call` in the stopped tracee `tid`: rewrites what the call
// returned (the struct timespec or timeval it filled, time's rax and *tloc) with the faked
// clock. Returns false when it left the result as it was because the call failed, its memory
// could not be read or written, or the stop is not the exit of `call` (the caller then only
// resumes the tracee). Throws nothing.
bool fake_clock_result(pid_t tid, ClockCall call, const idbench_clock_view& view) noexcept;

// The tracee's memory, by process_vm_readv/writev: true when all `n` bytes were copied.
bool read_tracee(pid_t tid, std::uint64_t address, void* to, std::size_t n) noexcept;
bool write_tracee(pid_t tid, std::uint64_t address, const void* from, std::size_t n) noexcept;

}  // namespace idbench::inject
