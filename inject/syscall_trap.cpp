// syscall_trap.cpp — the raw clock system calls of a launched process: filter, page, rewrite
// (syscall_trap.hpp).
#include "inject/syscall_trap.hpp"

#include <fcntl.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <ctime>
#include <iterator>

#include "plumbing/error.hpp"
#include "plumbing/raw_time.hpp"

namespace idbench::inject {
namespace {

constexpr std::int64_t kTrapSecondNs = 1'000'000'000;

constexpr std::uint32_t kArchOffset = offsetof(seccomp_data, arch);
constexpr std::uint32_t kNrOffset = offsetof(seccomp_data, nr);
// args[i] is a 64-bit value; x86-64 is little-endian, so its low half comes first.
constexpr std::uint32_t arg_low(int i) {
  return static_cast<std::uint32_t>(offsetof(seccomp_data, args) + 8 * static_cast<unsigned>(i));
}
constexpr std::uint32_t arg_high(int i) { return arg_low(i) + 4; }

constexpr sock_filter bpf_load(std::uint32_t offset) {
  return BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offset);
}
constexpr sock_filter bpf_jump_if(std::uint32_t k, std::uint8_t skip_if_true,
                                  std::uint8_t skip_if_false) {
  return BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k, skip_if_true, skip_if_false);
}
constexpr sock_filter bpf_return(std::uint32_t action) { return BPF_STMT(BPF_RET | BPF_K, action); }
constexpr std::uint32_t bpf_trace(ClockCall c) {
  return SECCOMP_RET_TRACE | static_cast<std::uint16_t>(c);
}

// The clocks idbench_fake_ns can move; a clock_gettime of any other is allowed.
constexpr std::uint32_t kFakeableClocks[] = {
    IDBENCH_CLOCK_REALTIME,  IDBENCH_CLOCK_REALTIME_COARSE, IDBENCH_CLOCK_TAI,
    IDBENCH_CLOCK_MONOTONIC, IDBENCH_CLOCK_MONOTONIC_RAW,   IDBENCH_CLOCK_MONOTONIC_COARSE,
    IDBENCH_CLOCK_BOOTTIME};

// floor(a / b) and its remainder in [0, b): a faked time before 1970 still makes a valid
// struct timespec (tv_nsec in [0, 1e9)).
std::int64_t trap_floor_div(std::int64_t a, std::int64_t b) {
  return a / b - ((a % b != 0 && a < 0) ? 1 : 0);
}
std::int64_t trap_floor_mod(std::int64_t a, std::int64_t b) { return a - trap_floor_div(a, b) * b; }

long syscall_number_of(ClockCall call) {
  switch (call) {
    case ClockCall::clock_gettime:
      return SYS_clock_gettime;
    case ClockCall::gettimeofday:
      return SYS_gettimeofday;
    case ClockCall::time:
      return SYS_time;
    case ClockCall::none:
      break;
  }
  return -1;
}

bool fake_timespec(pid_t tid, const user_regs_struct& r, const idbench_clock_view& v) {
  timespec ts{};
  if (r.rsi == 0 || !read_tracee(tid, r.rsi, &ts, sizeof ts)) return false;
  const int clock = static_cast<int>(r.rdi);  // clockid_t is an int: the kernel reads the low half
  const std::int64_t t = static_cast<std::int64_t>(ts.tv_sec) * kTrapSecondNs + ts.tv_nsec;
  const std::int64_t realtime = clock == IDBENCH_CLOCK_REALTIME ? t : plumbing::true_ns();
  const std::int64_t fake = idbench_fake_ns(&v, clock, t, realtime);
  if (fake == t) return false;
  const timespec out{static_cast<time_t>(trap_floor_div(fake, kTrapSecondNs)),
                     static_cast<long>(trap_floor_mod(fake, kTrapSecondNs))};
  return write_tracee(tid, r.rsi, &out, sizeof out);
}

bool fake_timeval(pid_t tid, const user_regs_struct& r, const idbench_clock_view& v) {
  timeval tv{};
  if (r.rdi == 0 || !read_tracee(tid, r.rdi, &tv, sizeof tv)) return false;
  const std::int64_t t = static_cast<std::int64_t>(tv.tv_sec) * kTrapSecondNs + tv.tv_usec * 1000;
  const std::int64_t fake = idbench_fake_ns(&v, IDBENCH_CLOCK_REALTIME, t, t);
  if (fake == t) return false;
  const timeval out{static_cast<time_t>(trap_floor_div(fake, kTrapSecondNs)),
                    static_cast<suseconds_t>(trap_floor_mod(fake, kTrapSecondNs) / 1000)};
  return write_tracee(tid, r.rdi, &out, sizeof out);
}

// time(2) returns whole seconds: the true time within that second is read here, so a line
// with a sub-second offset moves the answer at the right instant.
bool fake_seconds(pid_t tid, const user_regs_struct& r, const idbench_clock_view& v) {
  const auto seconds = static_cast<std::int64_t>(r.rax);
  const std::int64_t now = plumbing::true_ns();
  const std::int64_t t = now / kTrapSecondNs == seconds ? now : seconds * kTrapSecondNs;
  const std::int64_t fake =
      trap_floor_div(idbench_fake_ns(&v, IDBENCH_CLOCK_REALTIME, t, t), kTrapSecondNs);
  if (fake == seconds) return false;
  const auto out = static_cast<time_t>(fake);
  if (r.rdi != 0 && !write_tracee(tid, r.rdi, &out, sizeof out)) return false;
  constexpr std::size_t kRax = offsetof(struct user, regs) + offsetof(user_regs_struct, rax);
  return ::ptrace(PTRACE_POKEUSER, tid, reinterpret_cast<void*>(kRax),
                  reinterpret_cast<void*>(fake)) == 0;
}

}  // namespace

ClockCall clock_call_of(unsigned long event_message) {
  switch (static_cast<ClockCall>(event_message & SECCOMP_RET_DATA)) {
    case ClockCall::clock_gettime:
      return ClockCall::clock_gettime;
    case ClockCall::gettimeofday:
      return ClockCall::gettimeofday;
    case ClockCall::time:
      return ClockCall::time;
    case ClockCall::none:
      break;
  }
  return ClockCall::none;
}

ClockFilter::ClockFilter(bool let_marked_reads_pass) {
  code_ = {
      bpf_load(kArchOffset),
      bpf_jump_if(AUDIT_ARCH_X86_64, 1, 0),
      bpf_return(SECCOMP_RET_ALLOW),
      bpf_load(kNrOffset),
      bpf_jump_if(SYS_gettimeofday, 0, 1),
      bpf_return(bpf_trace(ClockCall::gettimeofday)),
      bpf_jump_if(SYS_time, 0, 1),
      bpf_return(bpf_trace(ClockCall::time)),
      bpf_jump_if(SYS_clock_gettime, 1, 0),
      bpf_return(SECCOMP_RET_ALLOW),
  };
  if (let_marked_reads_pass) {
    // the harness's mark in args[2], both halves: its own true-time read passes
    code_.insert(code_.end(),
                 {bpf_load(arg_low(2)),
                  bpf_jump_if(static_cast<std::uint32_t>(plumbing::kHarnessClockMark), 0, 3),
                  bpf_load(arg_high(2)),
                  bpf_jump_if(static_cast<std::uint32_t>(plumbing::kHarnessClockMark >> 32), 0, 1),
                  bpf_return(SECCOMP_RET_ALLOW)});
  }
  code_.push_back(bpf_load(arg_low(0)));
  // One test per clock, each jumping past the rest and the ALLOW to the TRACE that ends the list.
  constexpr auto n = static_cast<std::uint8_t>(std::size(kFakeableClocks));
  for (std::uint8_t i = 0; i < n; ++i) {
    code_.push_back(bpf_jump_if(kFakeableClocks[i], static_cast<std::uint8_t>(n - i), 0));
  }
  code_.push_back(bpf_return(SECCOMP_RET_ALLOW));
  code_.push_back(bpf_return(bpf_trace(ClockCall::clock_gettime)));
  program_.len = static_cast<unsigned short>(code_.size());
  program_.filter = code_.data();
}

int ClockFilter::install() const noexcept {
  if (::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &program_) == 0) return 0;
  return errno;
}

ClockPageMap::ClockPageMap(const std::string& path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st {};
  if (fd_ < 0 || ::fstat(fd_, &st) != 0) {
    const int e = errno;
    if (fd_ >= 0) ::close(fd_);
    throw Error("cannot open the clock page " + path + ": " + std::strerror(e));
  }
  length_ = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  void* p = static_cast<std::size_t>(st.st_size) < sizeof(idbench_clock_page)
                ? MAP_FAILED
                : ::mmap(nullptr, length_, PROT_READ, MAP_SHARED, fd_, 0);
  if (p == MAP_FAILED) {
    ::close(fd_);
    throw Error(path + " is not a faked clock's page (too small, or it cannot be mapped)");
  }
  page_ = static_cast<const idbench_clock_page*>(p);
  // acquire: the writer stores the magic last, with release, once the rest is initialised
  if (__atomic_load_n(&page_->magic, __ATOMIC_ACQUIRE) != IDBENCH_CLOCK_PAGE_MAGIC ||
      page_->version != IDBENCH_CLOCK_PAGE_VERSION) {
    ::munmap(const_cast<idbench_clock_page*>(page_), length_);
    ::close(fd_);
    throw Error(path + " is not a faked clock's page (no idbench clock page header, version " +
                std::to_string(IDBENCH_CLOCK_PAGE_VERSION) + ")");
  }
}

ClockPageMap::~ClockPageMap() {
  ::munmap(const_cast<idbench_clock_page*>(page_), length_);
  ::close(fd_);
}

std::string ClockPageMap::path_for_targets() const {
  return "/proc/" + std::to_string(::getpid()) + "/fd/" + std::to_string(fd_);
}

bool fake_clock_result(pid_t tid, ClockCall call, const idbench_clock_view& view) noexcept {
  if (call == ClockCall::none || view.deadline_ns == 0) return false;  // unarmed: true time
  user_regs_struct r{};
  if (::ptrace(PTRACE_GETREGS, tid, nullptr, &r) != 0) return false;
  // An exit stop of this call (an entry stop shows −ENOSYS in rax); a failed call is left alone.
  if (static_cast<long>(r.orig_rax) != syscall_number_of(call)) return false;
  if (static_cast<long>(r.rax) < 0) return false;
  switch (call) {
    case ClockCall::clock_gettime:
      return fake_timespec(tid, r, view);
    case ClockCall::gettimeofday:
      return fake_timeval(tid, r, view);
    case ClockCall::time:
      return fake_seconds(tid, r, view);
    case ClockCall::none:
      break;
  }
  return false;
}

bool read_tracee(pid_t tid, std::uint64_t address, void* to, std::size_t n) noexcept {
  iovec local{to, n};
  iovec remote{reinterpret_cast<void*>(address), n};
  return ::process_vm_readv(tid, &local, 1, &remote, 1, 0) == static_cast<ssize_t>(n);
}

bool write_tracee(pid_t tid, std::uint64_t address, const void* from, std::size_t n) noexcept {
  iovec local{const_cast<void*>(from), n};
  iovec remote{reinterpret_cast<void*>(address), n};
  return ::process_vm_writev(tid, &local, 1, &remote, 1, 0) == static_cast<ssize_t>(n);
}

}  // namespace idbench::inject
