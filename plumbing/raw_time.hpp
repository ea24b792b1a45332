// raw_time.hpp — the harness's own clocks, read by raw system calls so that libfaketime, which
// intercepts the libc and vDSO entry points of a process it is preloaded into (a chaos node, a
// program under test), never sees them. The one monotonic clock of the tree: every duration,
// deadline and pacing in idbench reads it.
//
//   true_ns()       CLOCK_REALTIME: the oracle for "when was this ID really issued". Debian's
//                   libfaketime does not intercept syscall(2).
//   monotonic_ns()  CLOCK_MONOTONIC: every duration and deadline in the harness. Never faked
//                   (nodes run with DONT_FAKE_MONOTONIC=1 as well, but the raw call does not
//                   depend on it).
//   sleep_until_mono(ns)  an absolute monotonic sleep; libfaketime rescales the sleeps it
//                   intercepts when a rate is set, so the raw call keeps node pacing true.
//
// The harness's mark: a third argument clock_gettime does not take, which the kernel ignores.
// The ptrace clock injector (inject/) traps the raw clock syscalls of the processes whose clock
// it fakes, to reach static binaries; a call carrying this mark is the harness's own true-time
// read inside such a process (a chaos node's oracle), and the injector's filter lets it pass.
// A program's own call carries whatever its rdx held: 1 in 2^64 to match by chance.
//
// A raw syscall costs ~100 ns instead of the vDSO's ~22 ns; the harness reads these clocks a
// few times per ID at most, and the bench's TSC calibration (bench/ticks.cpp) keeps the
// narrowest of five bracketing reads, so the longer call only widens a bracket it measures.
//
// Thread safety: thread-safe.
#pragma once

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

namespace idbench::plumbing {

// Nanoseconds per millisecond, for deadlines in monotonic_ns() given in ms.
inline constexpr std::int64_t kMsNs = 1'000'000;

inline constexpr std::uint64_t kHarnessClockMark = 0x6964626e63686b6dULL;

inline std::int64_t raw_clock_ns(clockid_t id) {
  timespec ts{};
  ::syscall(SYS_clock_gettime, id, &ts, kHarnessClockMark);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

inline std::int64_t true_ns() { return raw_clock_ns(CLOCK_REALTIME); }
inline std::int64_t monotonic_ns() { return raw_clock_ns(CLOCK_MONOTONIC); }

// Returns false when interrupted by a signal (the caller checks why), true at the deadline.
inline bool sleep_until_mono(std::int64_t deadline_ns) {
  timespec ts{static_cast<time_t>(deadline_ns / 1'000'000'000),
              static_cast<long>(deadline_ns % 1'000'000'000)};
  const long rc = ::syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
  // The raw syscall returns -1 and sets errno (unlike the libc wrapper, which returns it).
  return !(rc != 0 && errno == EINTR);
}

}  // namespace idbench::plumbing
