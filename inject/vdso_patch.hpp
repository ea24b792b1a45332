// vdso_patch.hpp — making a stopped process's vDSO clock entry points (clock_gettime,
// gettimeofday, time) jump to the trampoline (trampoline.c), which calls the original and
// applies the clock page's fault schedule (clock_page.h), at vDSO speed.
//
//   ClockPage page;                                          // in idbench
//   const std::string path = page.path();                     // /proc/<our pid>/fd/<its fd>
//   VdsoPatch patch = patch_vdso(pid, {pid}, path);          // at its PTRACE_EVENT_EXEC stop
//   ...
//   unpatch_vdso(pid, patch);                                // before detaching from it
//
// patch_vdso, in order, touching the process only once nothing is left to refuse:
//   1. refuses (inject::Refusal) a process that is not x86-64 (the ELF header of /proc/PID/exe,
//      and the code segment of its stopped thread), one without a [vdso], or a vDSO whose
//      layout vdso.hpp does not recognise;
//   2. maps the trampoline within ±2 GiB of the vDSO (an injected mmap, MAP_FIXED_NOREPLACE, at
//      the nearest free place /proc/PID/maps shows), r-x from the start: /proc/PID/mem writes
//      it all the same, and a process under a write-xor-execute policy (systemd's
//      MemoryDenyWriteExecute=, PR_SET_MDWE) may map r-x memory but may not mprotect writable
//      memory executable;
//   3. opens `page_path` in the process (the path is written in the new mapping, not on a
//      thread's stack: a Go goroutine's stack may have no room below its red zone), maps it
//      PROT_READ, MAP_SHARED, and closes the descriptor; checks the page's magic;
//   4. writes the trampoline, its parameter block and the relocated prologues;
//   5. steps any of `stopped_threads` whose rip is inside the bytes about to be overwritten past
//      them (single steps of the original code);
//   6. overwrites each entry point's first whole instructions with jmp rel32, padded with int3.
//
// The process: all its threads must be in a ptrace-stop by the caller (`stopped_threads`, the
// first of which runs the injected system calls). At a PTRACE_EVENT_EXEC stop (one thread, the
// new image's vDSO mapped, nothing of it run yet), the thread is first moved to the execve's
// syscall-exit-stop (PTRACE_SYSCALL), where changed registers hold. On return, and when it
// throws, every thread is in a ptrace-stop again, though maybe another kind (a SIGTRAP
// signal-delivery-stop): resume it as the stop it was in (PTRACE_CONT with the signal to
// deliver, or 0; never SIGTRAP). A system call a stop interrupted is restarted as it would have
// been. Threads the caller did not stop must not exist (the jumps are written in several
// writes). A vDSO already patched (a fork of a patched process inherits the patch) is refused:
// its entry points start with a jump.
//
// unpatch_vdso writes the original bytes back (for a process idbench detaches from but did not
// start). The trampoline's pages and the page's mapping stay: a thread may be inside the
// trampoline at that moment and returns through it; unpatched, nothing jumps there again, so
// they are two idle pages. A fork of a patched process inherits all of it (the page is shared);
// an exec maps a new vDSO, which must be patched again.
//
// Thread safety: call from the tracer thread of `pid` (ptrace requires it).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "inject/vdso.hpp"

namespace idbench::inject {

struct PatchedEntry {
  std::string name;                    // "clock_gettime", "gettimeofday", "time"
  std::uint64_t address = 0;           // the entry point in the process
  std::vector<std::uint8_t> original;  // the bytes the jump overwrote
  std::vector<std::uint8_t> jump;      // the bytes written there
};

struct VdsoPatch {
  std::uint64_t vdso_start = 0;
  std::uint64_t trampoline = 0;  // the trampoline's mapping (left mapped by unpatch_vdso)
  std::uint64_t trampoline_size = 0;
  std::uint64_t page = 0;  // the clock page's mapping in the process
  std::vector<PatchedEntry> entries;
};

VdsoPatch patch_vdso(pid_t pid, const std::vector<pid_t>& stopped_threads,
                     const std::string& page_path);
void unpatch_vdso(pid_t pid, const VdsoPatch& patch);

// One line of /proc/PID/maps: [start, end) and the name after the inode ("" for anonymous).
struct Mapping {
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  std::string name;
};
// Throws idbench::Error on a line it cannot read.
std::vector<Mapping> parse_maps(std::string_view text);

// The [vdso] mapping of `maps` (pid `pid`'s); throws Refusal when there is none (a process
// started with the vDSO disabled reads its clocks by system calls, which this patch cannot reach).
const Mapping& vdso_mapping(const std::vector<Mapping>& maps, pid_t pid);

// Page-aligned addresses where `size` bytes fit in a gap of `maps`, every byte within ±2 GiB
// (less a margin for the vDSO's own data pages) of every byte of the vDSO, nearest first. A
// gap is used 1 MiB away from its neighbours, and never just below [stack] or just above
// [heap], which grow into it.
std::vector<std::uint64_t> trampoline_candidates(const std::vector<Mapping>& maps,
                                                 const Mapping& vdso, std::uint64_t size);

}  // namespace idbench::inject
