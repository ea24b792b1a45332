// vdso_patch.cpp — patching a stopped process's vDSO clock entry points (vdso_patch.hpp).
#include "inject/vdso_patch.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "inject/clock_page.h"
#include "inject/remote.hpp"
#include "inject/trampoline.h"

namespace idbench::inject {

namespace {

constexpr std::uint64_t kPage = 4096;
constexpr std::uint64_t kReach = std::uint64_t{1} << 31;    // what a rel32 reaches
constexpr std::uint64_t kMargin = std::uint64_t{64} << 20;  // for [vvar] below the vDSO
constexpr std::uint64_t kSlack = std::uint64_t{1} << 20;    // from a gap's neighbours
constexpr std::uint64_t kLowest = std::uint64_t{1} << 20;   // never near address 0
constexpr std::uint64_t kHighest = std::uint64_t{1} << 47;  // 4-level paging's user space end
constexpr std::uint64_t kStubSize = 96;                     // >= kMaxRelocatedLength, aligned
constexpr std::uint16_t kUserCs64 = 0x33;                   // x86-64's 64-bit user code segment

std::uint64_t align_up(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in.is_open()) throw Error(fmt::format("cannot open {}", path));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void require_x86_64_process(pid_t pid) {
  const std::string exe = fmt::format("/proc/{}/exe", pid);
  const int fd = ::open(exe.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    throw Error(fmt::format("pid {}: cannot open {}: {}", pid, exe, std::strerror(errno)));
  }
  std::uint8_t header[64] = {};
  const ssize_t n = ::pread(fd, header, sizeof header, 0);
  ::close(fd);
  require_x86_64_elf(std::span<const std::uint8_t>(header, n > 0 ? static_cast<std::size_t>(n) : 0),
                     fmt::format("pid {} ({})", pid, exe));
}

// Makes the first thread's registers changeable (vdso_patch.hpp) and checks it runs 64-bit code.
void prepare_thread(pid_t pid, pid_t tid, const Remote& remote) {
  switch (stop_kind(tid)) {
    case StopKind::kExec:
      leave_exec_stop(pid, tid);
      break;
    case StopKind::kInsideSyscall:
      throw Error(
          fmt::format("pid {}: thread {} is at an event stop inside a system call (fork, "
                      "clone, seccomp, exit): patch it at another stop",
                      pid, tid));
    case StopKind::kSyscall:
      // rax is -ENOSYS at an entry stop (and at the exit stop of a call that failed with ENOSYS,
      // refused too: rare, and the caller can resume it to another stop)
      if (static_cast<long>(remote.registers(tid, "check its stop").rax) == -ENOSYS) {
        throw Error(
            fmt::format("pid {}: thread {} is at a syscall-entry-stop: patch it at "
                        "another stop",
                        pid, tid));
      }
      break;
    case StopKind::kOther:
      break;
  }
  if (remote.registers(tid, "check its mode").cs != kUserCs64) {
    throw Refusal(
        fmt::format("pid {}: thread {} runs 32-bit code: idbench fakes the clock of "
                    "x86-64 programs only",
                    pid, tid));
  }
}

// A system call's result, or an Error naming the step when it is -errno.
std::uint64_t checked(const Remote& remote, long result, std::string_view step) {
  if (result < 0 && result >= -4095) remote.fail(step, std::strerror(static_cast<int>(-result)));
  return static_cast<std::uint64_t>(result);
}

std::uint64_t map_trampoline(Remote& remote, const std::vector<Mapping>& maps, const Mapping& vdso,
                             std::uint64_t size) {
  const std::string_view step = "map the trampoline near the vDSO";
  std::string tried;
  for (const std::uint64_t at : trampoline_candidates(maps, vdso, size)) {
    const long got = remote.syscall(
        SYS_mmap,
        {at, size, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
         static_cast<std::uint64_t>(-1), 0},
        step);
    if (static_cast<std::uint64_t>(got) == at) return at;
    if (got >= 0) {  // a kernel that ignores MAP_FIXED_NOREPLACE put it elsewhere: undo
      remote.syscall(SYS_munmap, {static_cast<std::uint64_t>(got), size, 0, 0, 0, 0}, step);
    }
    tried +=
        fmt::format(" {:#x} ({})", at, got < 0 ? std::strerror(static_cast<int>(-got)) : "moved");
    if (tried.size() > 400) break;
  }
  remote.fail(step, fmt::format("no free place within ±2 GiB of the vDSO at {:#x}; tried{}",
                                vdso.start, tried.empty() ? " none" : tried));
}

// Maps the clock page in the process, read-only and shared; returns its address.
std::uint64_t map_page(Remote& remote, std::uint64_t path_address, const std::string& page_path) {
  const std::string open_step = fmt::format("open the clock page {}", page_path);
  const std::uint64_t fd = checked(remote,
                                   remote.syscall(SYS_openat,
                                                  {static_cast<std::uint64_t>(AT_FDCWD),
                                                   path_address, O_RDONLY | O_CLOEXEC, 0, 0, 0},
                                                  open_step),
                                   open_step);
  const std::string_view map_step = "map the clock page";
  const long page = remote.syscall(SYS_mmap, {0, kPage, PROT_READ, MAP_SHARED, fd, 0}, map_step);
  remote.syscall(SYS_close, {fd, 0, 0, 0, 0, 0}, "close the clock page's descriptor");
  const std::uint64_t address = checked(remote, page, map_step);
  std::uint64_t magic = 0;
  remote.read(address, std::span(reinterpret_cast<std::uint8_t*>(&magic), sizeof magic), map_step);
  if (magic != IDBENCH_CLOCK_PAGE_MAGIC) {
    remote.syscall(SYS_munmap, {address, kPage, 0, 0, 0, 0}, map_step);
    remote.fail(map_step, fmt::format("{} is not a clock page (no magic)", page_path));
  }
  return address;
}

// Where the parts of the trampoline's mapping are: the blob at 0, then the relocated prologues,
// then the clock page's path (for the injected open).
struct Layout {
  std::uint64_t stubs = 0;
  std::uint64_t path = 0;
  std::uint64_t size = 0;
};

Layout layout_for(const std::string& page_path) {
  Layout layout;
  layout.stubs = align_up(trampoline::kBlobSize, 64);
  layout.path = layout.stubs + 3 * kStubSize;
  layout.size = align_up(layout.path + page_path.size() + 1, kPage);
  return layout;
}

using Copies = std::array<RelocatedPrologue, 3>;

// The three prologues relocated to stubs from `stubs` on, each checked against its original;
// refuses entry points whose displaced bytes overlap.
Copies relocate_all(const VdsoEntries& entries, std::span<const std::uint8_t> image,
                    std::uint64_t vdso_start, std::uint64_t stubs) {
  Copies copies;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto code = image.subspan(entries[i].offset, entries[i].size);
    const std::uint64_t from = vdso_start + entries[i].offset;
    const std::uint64_t at = stubs + i * kStubSize;
    copies[i] = relocate_prologue(entries[i].name, code, from, at);
    verify_relocation(entries[i].name, code, from, copies[i], at);
  }
  for (std::size_t i = 0; i < entries.size(); ++i) {
    for (std::size_t j = 0; j < entries.size(); ++j) {
      const bool overlap = i != j && entries[j].offset >= entries[i].offset &&
                           entries[j].offset < entries[i].offset + copies[i].displaced;
      if (overlap) {
        throw Refusal(fmt::format("the vDSO's {} starts inside the first {} bytes of its {}",
                                  entries[j].name, copies[i].displaced, entries[i].name));
      }
    }
  }
  return copies;
}

// The mapping's bytes: the blob with its parameter block filled, the stubs, the path.
std::vector<std::uint8_t> trampoline_bytes(const Layout& layout, const VdsoPatch& patch,
                                           const Copies& copies, const std::string& page_path) {
  std::vector<std::uint8_t> bytes(layout.size, 0xcc);  // int3 wherever nothing is
  std::memcpy(bytes.data(), trampoline::kBlob, trampoline::kBlobSize);
  idbench_trampoline_params params{};
  std::memcpy(&params, bytes.data() + trampoline::kParams, sizeof params);
  if (params.magic != IDBENCH_TRAMPOLINE_MAGIC) {
    throw Error("the embedded trampoline's parameter block has no magic: a build mixed two blobs");
  }
  const std::uint64_t stubs = patch.trampoline + layout.stubs;
  params.clock_gettime = stubs;
  params.gettimeofday = stubs + kStubSize;
  params.time = stubs + 2 * kStubSize;
  params.page = patch.page;
  std::memcpy(bytes.data() + trampoline::kParams, &params, sizeof params);
  for (std::size_t i = 0; i < copies.size(); ++i) {
    std::copy(copies[i].code.begin(), copies[i].code.end(),
              bytes.begin() + static_cast<std::ptrdiff_t>(layout.stubs + i * kStubSize));
  }
  std::memcpy(bytes.data() + layout.path, page_path.c_str(), page_path.size() + 1);
  return bytes;
}

// Maps the page, then writes the trampoline; returns the relocated prologues.
Copies fill_trampoline(Remote& remote, VdsoPatch& patch, const Layout& layout,
                       const VdsoEntries& entries, std::span<const std::uint8_t> image,
                       const std::string& page_path) {
  const std::string path_z = page_path + '\0';
  remote.write(patch.trampoline + layout.path,
               std::span(reinterpret_cast<const std::uint8_t*>(path_z.data()), path_z.size()),
               "write the clock page's path");
  patch.page = map_page(remote, patch.trampoline + layout.path, page_path);
  const Copies copies =
      relocate_all(entries, image, patch.vdso_start, patch.trampoline + layout.stubs);
  remote.write(patch.trampoline, trampoline_bytes(layout, patch, copies, page_path),
               "write the trampoline");
  return copies;
}

// Single-steps each thread whose rip is strictly inside the bytes a jump will overwrite (at the
// first byte it runs the jump) until it is past them: at most a few instructions.
void step_out(Remote& remote, const std::vector<pid_t>& threads, const VdsoPatch& patch) {
  const std::string_view step = "step a thread out of an entry point's first instructions";
  for (const pid_t tid : threads) {
    for (int steps = 0;; ++steps) {
      const std::uint64_t rip = remote.registers(tid, step).rip;
      const bool inside =
          std::any_of(patch.entries.begin(), patch.entries.end(), [&](const PatchedEntry& e) {
            return rip > e.address && rip < e.address + e.jump.size();
          });
      if (!inside) break;
      if (steps == 8) remote.fail(step, fmt::format("thread {} is still at {:#x}", tid, rip));
      remote.single_step(tid, step);
    }
  }
}

}  // namespace

std::vector<Mapping> parse_maps(std::string_view text) {
  std::vector<Mapping> maps;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::istringstream fields(line);
    std::string range, perms, offset, device, inode, name;
    fields >> range >> perms >> offset >> device >> inode;
    std::getline(fields >> std::ws, name);
    const std::size_t dash = range.find('-');
    Mapping m;
    try {
      if (dash == std::string::npos || inode.empty()) throw std::invalid_argument("short line");
      m.start = std::stoull(range.substr(0, dash), nullptr, 16);
      m.end = std::stoull(range.substr(dash + 1), nullptr, 16);
    } catch (const std::logic_error&) {
      throw Error(fmt::format("cannot read this line of a maps file: {}", one_line(line)));
    }
    if (m.end <= m.start) {
      throw Error(fmt::format("an empty mapping in a maps file: {}", one_line(line)));
    }
    m.name = name;
    maps.push_back(std::move(m));
  }
  std::sort(maps.begin(), maps.end(),
            [](const Mapping& a, const Mapping& b) { return a.start < b.start; });
  return maps;
}

const Mapping& vdso_mapping(const std::vector<Mapping>& maps, pid_t pid) {
  const auto vdso =
      std::find_if(maps.begin(), maps.end(), [](const Mapping& m) { return m.name == "[vdso]"; });
  if (vdso == maps.end()) {
    throw Refusal(fmt::format("pid {} has no [vdso]: its clock reads are system calls", pid));
  }
  return *vdso;
}

std::vector<std::uint64_t> trampoline_candidates(const std::vector<Mapping>& maps,
                                                 const Mapping& vdso, std::uint64_t size) {
  // [lo, hi): where every byte of the trampoline reaches every byte of the vDSO and its data
  const std::uint64_t reach = kReach - kMargin;
  const std::uint64_t lo = std::max(kLowest, vdso.end > reach ? vdso.end - reach : 0);
  const std::uint64_t hi = std::min(kHighest, vdso.start + reach);
  std::vector<std::uint64_t> found;
  for (std::size_t i = 0; i <= maps.size(); ++i) {
    const std::uint64_t gap_start = i == 0 ? 0 : maps[i - 1].end;
    const std::uint64_t gap_end = i == maps.size() ? kHighest : maps[i].start;
    // the part of the gap 1 MiB from its neighbours that is within reach
    const std::uint64_t first = align_up(std::max(gap_start + kSlack, lo), kPage);
    const std::uint64_t last = std::min(gap_end > kSlack ? gap_end - kSlack : 0, hi);
    if (last <= first || last - first < size) continue;
    if (i == maps.size() || maps[i].name != "[stack]") {
      found.push_back((last - size) / kPage * kPage);
    }
    if (i == 0 || maps[i - 1].name != "[heap]") found.push_back(first);
  }
  const auto distance = [&](std::uint64_t at) {
    return at > vdso.start ? at - vdso.start : vdso.start - at;
  };
  std::sort(found.begin(), found.end(),
            [&](std::uint64_t a, std::uint64_t b) { return distance(a) < distance(b); });
  return found;
}

VdsoPatch patch_vdso(pid_t pid, const std::vector<pid_t>& stopped_threads,
                     const std::string& page_path) {
  if (stopped_threads.empty()) {
    throw Error(fmt::format("pid {}: no stopped thread to patch it with", pid));
  }
  require_x86_64_process(pid);
  Remote remote(pid, stopped_threads.front());
  prepare_thread(pid, stopped_threads.front(), remote);
  const std::vector<Mapping> maps = parse_maps(read_text(fmt::format("/proc/{}/maps", pid)));
  const Mapping* vdso = &vdso_mapping(maps, pid);
  const std::vector<std::uint8_t> image =
      remote.read(vdso->start, vdso->end - vdso->start, "read its vDSO");
  const VdsoEntries entries = find_vdso_entries(image);
  remote.use_syscall_at(vdso->start + find_syscall_instruction(image));
  relocate_all(entries, image, vdso->start, vdso->start);  // refuses before anything changes
  const Layout layout = layout_for(page_path);
  VdsoPatch patch;
  patch.vdso_start = vdso->start;
  patch.trampoline_size = layout.size;
  patch.trampoline = map_trampoline(remote, maps, *vdso, layout.size);
  Copies copies;
  try {
    copies = fill_trampoline(remote, patch, layout, entries, image, page_path);
  } catch (...) {
    try {  // leave no mapping behind; the process is otherwise as it was
      remote.syscall(SYS_munmap, {patch.trampoline, layout.size, 0, 0, 0, 0}, "undo");
      if (patch.page != 0) remote.syscall(SYS_munmap, {patch.page, kPage, 0, 0, 0, 0}, "undo");
    } catch (const Error&) {
    }
    throw;
  }
  const std::array<std::size_t, 3> entry_offsets{trampoline::kClockGettime,
                                                 trampoline::kGettimeofday, trampoline::kTime};
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const std::uint64_t from = vdso->start + entries[i].offset;
    const auto original = std::span(image).subspan(entries[i].offset, copies[i].displaced);
    patch.entries.push_back(
        {entries[i].name,
         from,
         {original.begin(), original.end()},
         entry_jump(from, patch.trampoline + entry_offsets[i], copies[i].displaced)});
  }
  step_out(remote, stopped_threads, patch);
  for (const PatchedEntry& e : patch.entries)
    remote.write(e.address, e.jump, "write the jump to the trampoline");
  remote.resend_signals();
  return patch;
}

void unpatch_vdso(pid_t pid, const VdsoPatch& patch) {
  Remote remote(pid, pid);
  for (const PatchedEntry& e : patch.entries) {
    const std::string step = fmt::format("unpatch the vDSO's {}", e.name);
    const std::vector<std::uint8_t> now = remote.read(e.address, e.jump.size(), step);
    if (now == e.original) continue;
    if (now != e.jump) {
      remote.fail(step, fmt::format("{:#x} holds {}, neither the patch's jump nor the original "
                                    "bytes (did the process exec?)",
                                    e.address, hex_bytes(now)));
    }
    remote.write(e.address, e.original, step);
  }
}

}  // namespace idbench::inject
