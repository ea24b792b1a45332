// vdso_patch_test.cpp — patching real processes' vDSOs: a C program (testdata/clock_reader.c)
// patched at its exec stop reads the page's faked time through libc's clock_gettime,
// gettimeofday and time, and true time on CLOCK_MONOTONIC and by raw syscall; a page changed
// while it runs is seen on the next read; past the deadline it reads true time, also when the
// writer died mid-update; a Go program reads the faked time too, patched at its exec or with all
// its threads stopped while it runs; a running process is patched after an attach and unpatched,
// its vDSO text then byte for byte what it was; a thread stopped inside the overwritten bytes is
// stepped out; a write-xor-execute process is patched; a second patch, a 32-bit thread and a
// path that is not a clock page are refused. IDBENCH_VDSO_MEASURE=1 also measures (never
// asserts) the cost of a read and of a patch.
#include "inject/vdso_patch.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/time.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>
#include <utility>

#include "inject/clock_page.hpp"
#include "inject/remote.hpp"
#include "plumbing/raw_time.hpp"

namespace idbench::inject {
namespace {

constexpr std::int64_t kSec = 1'000'000'000;
constexpr std::int64_t kHour = 3600 * kSec;
constexpr std::int64_t kTolerance = kSec;  // a loaded 2-core machine; the faults are hours

// ptrace's data argument for options.
void* options(unsigned long flags) { return reinterpret_cast<void*>(flags); }

// A child process with a pipe to its stdin and one from its stdout, killed and reaped at the
// end (and killed by the kernel if this process dies: PR_SET_PDEATHSIG, PTRACE_O_EXITKILL).
class Child {
 public:
  // kTracedToExec: the child stops itself, this process traces it to its PTRACE_EVENT_EXEC stop
  // and returns there; kUntraced: it just runs.
  enum class Start { kTracedToExec, kUntraced };

  Child(const std::vector<std::string>& argv, Start start) {
    int in[2];
    int out[2];
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) throw Error("pipe2");
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_ = ::fork();
    if (pid_ == 0) {  // only async-signal-safe calls until exec
      ::dup2(in[0], 0);
      ::dup2(out[1], 1);
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (start == Start::kTracedToExec) {
        ::ptrace(PTRACE_TRACEME, 0, nullptr, nullptr);
        ::raise(SIGSTOP);
      }
      ::execv(args[0], args.data());
      ::_exit(127);
    }
    ::close(in[0]);
    ::close(out[1]);
    to_child_ = in[1];
    from_child_ = out[0];
    if (pid_ < 0) throw Error("fork");
    try {
      if (start == Start::kTracedToExec) trace_to_exec();
    } catch (...) {
      end();
      throw;
    }
  }

  ~Child() { end(); }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  pid_t pid() const { return pid_; }

  int wait_stop() const {
    int status = 0;
    if (::waitpid(pid_, &status, __WALL) != pid_) throw Error("waitpid");
    return status;
  }

  void ptrace_or_throw(__ptrace_request request, void* data = nullptr) const {
    if (::ptrace(request, pid_, nullptr, data) != 0) {
      throw Error(
          fmt::format("ptrace request {}: {}", static_cast<int>(request), std::strerror(errno)));
    }
  }

  void send(std::string_view line) const {
    const std::string text = std::string(line) + "\n";
    if (::write(to_child_, text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
      throw Error("cannot write to the child");
    }
  }

  // One line of the child's stdout, within 20 s.
  std::string receive() {
    for (;;) {
      const std::size_t newline = buffer_.find('\n');
      if (newline != std::string::npos) {
        std::string line = buffer_.substr(0, newline);
        buffer_.erase(0, newline + 1);
        return line;
      }
      pollfd p{from_child_, POLLIN, 0};
      if (::poll(&p, 1, 20'000) != 1) throw Error("the child did not answer within 20 s");
      char chunk[4096];
      const ssize_t n = ::read(from_child_, chunk, sizeof chunk);
      if (n <= 0) throw Error("the child closed its stdout (did it crash?)");
      buffer_.append(chunk, static_cast<std::size_t>(n));
    }
  }

 private:
  void trace_to_exec() {
    const int stopped = wait_stop();
    if (!WIFSTOPPED(stopped) || WSTOPSIG(stopped) != SIGSTOP) throw Error("the child did not stop");
    ptrace_or_throw(PTRACE_SETOPTIONS, options(PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL));
    ptrace_or_throw(PTRACE_CONT);
    const int exec = wait_stop();
    if (exec >> 8 != (SIGTRAP | (PTRACE_EVENT_EXEC << 8))) {
      throw Error(fmt::format("the child did not reach its exec stop (status {:#x})", exec));
    }
  }

  void end() {
    ::close(to_child_);
    ::close(from_child_);
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      int status = 0;
      ::waitpid(pid_, &status, __WALL);
    }
  }

  pid_t pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
  std::string buffer_;
};

struct Reading {
  std::int64_t realtime = 0;      // libc clock_gettime(CLOCK_REALTIME)
  std::int64_t gettimeofday = 0;  // µs, as ns
  std::int64_t time = 0;          // s
  std::int64_t monotonic = 0;
  std::int64_t raw = 0;  // syscall(SYS_clock_gettime, CLOCK_REALTIME)
  int tz_minuteswest = 0;
  int tz_dsttime = 0;
};

Reading read_clocks(Child& child) {
  child.send("read");
  std::istringstream line(child.receive());
  Reading r;
  line >> r.realtime >> r.gettimeofday >> r.time >> r.monotonic >> r.raw >> r.tz_minuteswest >>
      r.tz_dsttime;
  if (!line) throw Error("the clock reader's answer is not seven numbers");
  return r;
}

std::vector<std::string> reader() { return {IDBENCH_CLOCK_READER}; }

// The reader, patched at its exec stop and let go (detached).
std::unique_ptr<Child> patched_reader(const ClockPage& page, VdsoPatch* patch = nullptr) {
  auto child = std::make_unique<Child>(reader(), Child::Start::kTracedToExec);
  const VdsoPatch p = patch_vdso(child->pid(), {child->pid()}, page.path());
  if (patch != nullptr) *patch = p;
  child->ptrace_or_throw(PTRACE_DETACH);
  return child;
}

// Every clock the page moves reads `offset` from true time; the others read true time.
void expect_offset(const Reading& r, std::int64_t offset) {
  const std::int64_t now = plumbing::true_ns();
  EXPECT_NEAR(r.realtime, now + offset, kTolerance);
  EXPECT_NEAR(r.gettimeofday, now + offset, kTolerance);
  EXPECT_NEAR(r.time * kSec, now + offset, kTolerance + kSec);
  EXPECT_NEAR(r.raw, now, kTolerance);  // the raw system call is not the vDSO's to fake
  EXPECT_NEAR(r.monotonic, plumbing::monotonic_ns(), kTolerance);
}

TEST(VdsoPatch, AtTheExecStopTheLibcClockReadsFollowThePage) {
  ClockPage page;
  const std::int64_t now = plumbing::true_ns();
  page.set_line(now, now - kHour, 1.0);
  ClockPage::Lease lease(page);
  auto child = patched_reader(page);
  const Reading r = read_clocks(*child);
  expect_offset(r, -kHour);
  timeval tv{};
  struct timezone tz {};
  ::gettimeofday(&tv, &tz);
  EXPECT_EQ(r.tz_minuteswest, tz.tz_minuteswest);  // filled by the original, not left at -1
  EXPECT_EQ(r.tz_dsttime, tz.tz_dsttime);
}

TEST(VdsoPatch, APageChangedWhileTheProgramRunsIsSeenOnTheNextRead) {
  ClockPage page;
  std::int64_t now = plumbing::true_ns();
  page.set_line(now, now - kHour, 1.0);
  ClockPage::Lease lease(page);
  auto child = patched_reader(page);
  expect_offset(read_clocks(*child), -kHour);
  now = plumbing::true_ns();
  page.set_line(now, now - 2 * kHour, 1.0);  // a further step back
  expect_offset(read_clocks(*child), -2 * kHour);
  const std::int64_t frozen = plumbing::true_ns() + 5 * kHour + 123'456'789;
  page.set_line(plumbing::true_ns(), frozen, 0.0);  // rate 0: a paused clock
  const Reading a = read_clocks(*child);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const Reading b = read_clocks(*child);
  EXPECT_EQ(a.realtime, frozen);
  EXPECT_EQ(b.realtime, frozen);
  EXPECT_EQ(b.gettimeofday, frozen / 1000 * 1000);
  EXPECT_EQ(b.time, frozen / kSec);
  EXPECT_NEAR(b.raw, plumbing::true_ns(), kTolerance);
}

TEST(VdsoPatch, PastTheDeadlineTheProgramReadsTrueTime) {
  ClockPage page;
  const std::int64_t now = plumbing::true_ns();
  page.set_line(now, now - kHour, 1.0);
  auto child = patched_reader(page);
  expect_offset(read_clocks(*child), 0);  // not armed yet
  {
    ClockPage::Lease lease(page);
    expect_offset(read_clocks(*child), -kHour);
  }
  expect_offset(read_clocks(*child), 0);  // the lease ended: disarmed
  page.renew(300'000'000);                // armed for 0.3 s, and nobody renews it
  expect_offset(read_clocks(*child), -kHour);
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  ASSERT_NE(page.page().deadline_ns, 0);  // still armed, but the deadline has passed
  expect_offset(read_clocks(*child), 0);
}

// A writer killed between its two seq stores leaves the page's seq odd for ever: the patched
// program must not spin in its clock reads for ever, but read true time once the deadline has
// passed (without the way out, read_clocks times out after 20 s).
TEST(VdsoPatch, AWriterKilledMidUpdateLeavesTrueTimeOnceTheDeadlinePasses) {
  ClockPage page;
  const std::int64_t now = plumbing::true_ns();
  page.set_line(now, now - kHour, 1.0);
  page.renew(300'000'000);
  auto child = patched_reader(page);
  expect_offset(read_clocks(*child), -kHour);
  void* writable =
      ::mmap(nullptr, sizeof(idbench_clock_page), PROT_READ | PROT_WRITE, MAP_SHARED, page.fd(), 0);
  ASSERT_NE(writable, MAP_FAILED);
  auto* raw = static_cast<idbench_clock_page*>(writable);
  // release: as the writer's first store (clock_page.cpp); no second store follows
  __atomic_store_n(&raw->seq, raw->seq + 1, __ATOMIC_RELEASE);
  expect_offset(read_clocks(*child), 0);
  expect_offset(read_clocks(*child), 0);
  ::munmap(writable, sizeof(idbench_clock_page));
}

// The Unix time in ns of a version-1 UUID's 60-bit timestamp (100-ns ticks since 1582-10-15).
std::int64_t uuid_v1_unix_ns(const std::string& text) {
  if (text.size() != 36 || text[14] != '1') throw Error("not a UUIDv1: " + text);
  const std::uint64_t low = std::stoull(text.substr(0, 8), nullptr, 16);
  const std::uint64_t mid = std::stoull(text.substr(9, 4), nullptr, 16);
  const std::uint64_t high = std::stoull(text.substr(15, 3), nullptr, 16);
  const std::uint64_t ticks = (high << 48) | (mid << 32) | low;
  constexpr std::uint64_t kGregorianToUnix = 0x01B21DD213814000;  // in 100-ns ticks
  return static_cast<std::int64_t>(ticks - kGregorianToUnix) * 100;
}

// Why the Go adapter cannot be run, or "" when it can.
std::string go_adapter_missing(const std::string& go_adapter) {
  if (::access(go_adapter.c_str(), X_OK) == 0) return "";
  return go_adapter +
         " is not built: the Go toolchain or the Go ID libraries are not installed "
         "(adapters/go names the Debian packages)";
}

// The page's clock an hour behind true time from now on.
void set_an_hour_back(ClockPage& page) {
  const std::int64_t now = plumbing::true_ns();
  page.set_line(now, now - kHour, 1.0);
}

TEST(VdsoPatch, AGoProgramReadsTheFakedTimeToo) {
  const std::string go_adapter = IDBENCH_GO_ADAPTER;
  if (const std::string why = go_adapter_missing(go_adapter); !why.empty()) GTEST_SKIP() << why;
  ClockPage page;
  set_an_hour_back(page);
  ClockPage::Lease lease(page);
  Child child({go_adapter, "google-uuid-v1"}, Child::Start::kTracedToExec);
  patch_vdso(child.pid(), {child.pid()}, page.path());
  child.ptrace_or_throw(PTRACE_DETACH);
  child.send("1");
  const std::int64_t id_ns = uuid_v1_unix_ns(child.receive());
  EXPECT_NEAR(id_ns, plumbing::true_ns() - kHour, kTolerance);
}

// The vDSO's bytes in process `pid`.
std::vector<std::uint8_t> vdso_text(pid_t pid) {
  std::ifstream maps(fmt::format("/proc/{}/maps", pid));
  std::stringstream text;
  text << maps.rdbuf();
  for (const Mapping& m : parse_maps(text.str())) {
    if (m.name != "[vdso]") continue;
    std::vector<std::uint8_t> bytes(m.end - m.start);
    std::ifstream mem(fmt::format("/proc/{}/mem", pid), std::ios::binary);
    mem.seekg(static_cast<std::streamoff>(m.start));
    mem.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!mem) throw Error("cannot read the child's vDSO");
    return bytes;
  }
  throw Error("the child has no [vdso]");
}

std::uint64_t vdso_start(pid_t pid) {
  std::ifstream maps(fmt::format("/proc/{}/maps", pid));
  std::stringstream text;
  text << maps.rdbuf();
  for (const Mapping& m : parse_maps(text.str())) {
    if (m.name == "[vdso]") return m.start;
  }
  throw Error("the child has no [vdso]");
}

void write_memory(pid_t pid, std::uint64_t address, const void* bytes, std::size_t length) {
  const int fd = ::open(fmt::format("/proc/{}/mem", pid).c_str(), O_RDWR | O_CLOEXEC);
  const bool ok = fd >= 0 && ::pwrite(fd, bytes, length, static_cast<off_t>(address)) ==
                                 static_cast<ssize_t>(length);
  if (fd >= 0) ::close(fd);
  if (!ok) throw Error("cannot write the child's memory");
}

// Attaches to a running child (PTRACE_SEIZE) and stops it (PTRACE_INTERRUPT).
void seize_and_stop(Child& child) {
  child.ptrace_or_throw(PTRACE_SEIZE, options(PTRACE_O_EXITKILL));
  child.ptrace_or_throw(PTRACE_INTERRUPT);
  const int status = child.wait_stop();
  if (!WIFSTOPPED(status) || status >> 16 != PTRACE_EVENT_STOP) throw Error("no interrupt stop");
}

TEST(VdsoPatch, ARunningProcessIsPatchedAfterAnAttachAndUnpatchedByteForByte) {
  ClockPage page;
  const std::int64_t now = plumbing::true_ns();
  page.set_line(now, now - kHour, 1.0);
  ClockPage::Lease lease(page);
  Child child(reader(), Child::Start::kUntraced);
  expect_offset(read_clocks(child), 0);
  seize_and_stop(child);  // it is blocked reading its stdin: the read must restart
  const std::vector<std::uint8_t> before = vdso_text(child.pid());
  const VdsoPatch patch = patch_vdso(child.pid(), {child.pid()}, page.path());
  ASSERT_EQ(patch.entries.size(), 3u);
  EXPECT_NE(vdso_text(child.pid()), before);
  child.ptrace_or_throw(PTRACE_CONT);
  expect_offset(read_clocks(child), -kHour);
  child.ptrace_or_throw(PTRACE_INTERRUPT);
  ASSERT_EQ(child.wait_stop() >> 16, PTRACE_EVENT_STOP);
  unpatch_vdso(child.pid(), patch);
  EXPECT_EQ(vdso_text(child.pid()), before);
  child.ptrace_or_throw(PTRACE_DETACH);
  expect_offset(read_clocks(child), 0);  // the page is still armed, but nothing jumps to it
}

std::vector<pid_t> threads_of(pid_t pid) {
  std::vector<pid_t> tids;
  for (const auto& entry : std::filesystem::directory_iterator(fmt::format("/proc/{}/task", pid))) {
    tids.push_back(std::stoi(entry.path().filename().string()));
  }
  return tids;
}

// Seizes and stops every thread of a running process, until no new one appears; returns each
// thread with the signal its stop holds for delivery (0 for an interrupt stop).
std::vector<std::pair<pid_t, int>> seize_all(pid_t pid) {
  std::vector<std::pair<pid_t, int>> stopped;
  for (bool added = true; added;) {
    added = false;
    for (const pid_t tid : threads_of(pid)) {
      const auto known = [&](const auto& t) { return t.first == tid; };
      if (std::any_of(stopped.begin(), stopped.end(), known)) continue;
      if (::ptrace(PTRACE_SEIZE, tid, nullptr, options(PTRACE_O_EXITKILL)) != 0 ||
          ::ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr) != 0) {
        throw Error(fmt::format("cannot seize thread {}: {}", tid, std::strerror(errno)));
      }
      int status = 0;
      if (::waitpid(tid, &status, __WALL) != tid || !WIFSTOPPED(status)) throw Error("no stop");
      const bool signal_stop = status >> 16 == 0;
      stopped.emplace_back(tid, signal_stop ? WSTOPSIG(status) : 0);
      added = true;
    }
  }
  return stopped;
}

TEST(VdsoPatch, ARunningGoProgramIsPatchedWithAllItsThreadsStopped) {
  const std::string go_adapter = IDBENCH_GO_ADAPTER;
  if (const std::string why = go_adapter_missing(go_adapter); !why.empty()) GTEST_SKIP() << why;
  ClockPage page;
  set_an_hour_back(page);
  ClockPage::Lease lease(page);
  Child child({go_adapter, "google-uuid-v1"}, Child::Start::kUntraced);
  child.send("1");
  EXPECT_NEAR(uuid_v1_unix_ns(child.receive()), plumbing::true_ns(), kTolerance);
  const std::vector<std::pair<pid_t, int>> stopped = seize_all(child.pid());
  std::vector<pid_t> tids;
  for (const auto& [tid, sig] : stopped) tids.push_back(tid);
  EXPECT_GT(tids.size(), 1u);  // the Go runtime's threads
  patch_vdso(child.pid(), tids, page.path());
  for (const auto& [tid, sig] : stopped) {
    ::ptrace(PTRACE_DETACH, tid, nullptr, reinterpret_cast<void*>(static_cast<long>(sig)));
  }
  child.send("1");
  EXPECT_NEAR(uuid_v1_unix_ns(child.receive()), plumbing::true_ns() - kHour, kTolerance);
}

// A process under a write-xor-execute policy may not make writable memory executable: the
// trampoline is mapped r-x from the start (an mprotect to r-x would fail with EACCES here).
TEST(VdsoPatch, AProcessThatDeniesWriteThenExecuteIsPatched) {
  ClockPage page;
  const std::int64_t now = plumbing::true_ns();
  page.set_line(now, now - kHour, 1.0);
  ClockPage::Lease lease(page);
  Child child(reader(), Child::Start::kUntraced);
  child.send("mdwe");
  const std::string mdwe = child.receive();
  if (mdwe != "0") GTEST_SKIP() << "this kernel has no PR_SET_MDWE (errno " << mdwe << ")";
  seize_and_stop(child);
  patch_vdso(child.pid(), {child.pid()}, page.path());
  child.ptrace_or_throw(PTRACE_DETACH);
  expect_offset(read_clocks(child), -kHour);
}

TEST(VdsoPatch, APatchedProcessIsRefusedASecondPatch) {
  ClockPage page;
  Child child(reader(), Child::Start::kTracedToExec);
  patch_vdso(child.pid(), {child.pid()}, page.path());
  try {
    patch_vdso(child.pid(), {child.pid()}, page.path());
    ADD_FAILURE() << "a second patch was not refused";
  } catch (const Refusal& e) {
    EXPECT_NE(std::string(e.what()).find("patched already"), std::string::npos) << e.what();
  }
  child.ptrace_or_throw(PTRACE_DETACH);
  expect_offset(read_clocks(child), 0);  // the first patch still works: unarmed, true time
}

// The x86-64 kernel lets a tracer set a thread's code segment to the 32-bit one (0x23): the
// thread then reads as running 32-bit code, which patch_vdso must refuse.
TEST(VdsoPatch, AThreadRunning32BitCodeIsRefused) {
  ClockPage page;
  Child child(reader(), Child::Start::kTracedToExec);
  leave_exec_stop(child.pid(), child.pid());
  user_regs_struct regs{};
  child.ptrace_or_throw(PTRACE_GETREGS, &regs);
  user_regs_struct compat = regs;
  compat.cs = 0x23;
  child.ptrace_or_throw(PTRACE_SETREGS, &compat);
  try {
    patch_vdso(child.pid(), {child.pid()}, page.path());
    ADD_FAILURE() << "a thread running 32-bit code was patched";
  } catch (const Refusal& e) {
    EXPECT_NE(std::string(e.what()).find("32-bit"), std::string::npos) << e.what();
  }
  child.ptrace_or_throw(PTRACE_SETREGS, &regs);
  child.ptrace_or_throw(PTRACE_DETACH);
  expect_offset(read_clocks(child), 0);
}

TEST(VdsoPatch, APathThatIsNotAClockPageIsAnErrorAndLeavesTheVdsoAlone) {
  Child child(reader(), Child::Start::kTracedToExec);
  const std::vector<std::uint8_t> before = vdso_text(child.pid());
  EXPECT_THROW(patch_vdso(child.pid(), {child.pid()}, "/proc/self/exe"), Error);
  EXPECT_THROW(patch_vdso(child.pid(), {child.pid()}, "/nonexistent/clock-page"), Error);
  EXPECT_EQ(vdso_text(child.pid()), before);
  child.ptrace_or_throw(PTRACE_DETACH);
  expect_offset(read_clocks(child), 0);
}

// A thread stopped inside the bytes a jump overwrites: the reader at its execve's exit, its
// registers set as if its first instruction had called clock_gettime(CLOCK_REALTIME, buffer) and
// run the function's first instruction (push rbp). patch_vdso must step it past the displaced
// instructions; left there, it would run the middle of the jump's bytes and crash.
TEST(VdsoPatch, AThreadInsideTheDisplacedBytesIsSteppedOut) {
  ClockPage page;
  const std::int64_t now = plumbing::true_ns();
  page.set_line(now, now - kHour, 1.0);
  ClockPage::Lease lease(page);
  Child child(reader(), Child::Start::kTracedToExec);
  leave_exec_stop(child.pid(), child.pid());
  const std::vector<std::uint8_t> text = vdso_text(child.pid());
  const VdsoFunction clock_gettime = find_vdso_entries(text)[0];
  const std::uint64_t entry = vdso_start(child.pid()) + clock_gettime.offset;
  user_regs_struct regs{};
  child.ptrace_or_throw(PTRACE_GETREGS, &regs);
  const user_regs_struct at_start = regs;
  const std::uint64_t frame[2] = {regs.rbp, regs.rip};  // pushed rbp, then the return address
  regs.rsp -= sizeof frame;
  write_memory(child.pid(), regs.rsp, frame, sizeof frame);
  regs.rip = entry + 1;            // after push rbp
  regs.rdi = 0;                    // CLOCK_REALTIME
  regs.rsi = at_start.rsp - 4096;  // a buffer well below the initial stack pointer
  child.ptrace_or_throw(PTRACE_SETREGS, &regs);
  const VdsoPatch patch = patch_vdso(child.pid(), {child.pid()}, page.path());
  child.ptrace_or_throw(PTRACE_GETREGS, &regs);
  EXPECT_GE(regs.rip, patch.entries[0].address + patch.entries[0].jump.size());
  EXPECT_LT(regs.rip, entry + clock_gettime.size);
  child.ptrace_or_throw(PTRACE_DETACH);
  expect_offset(read_clocks(child), -kHour);  // it returned to its start and runs, patched
}

// ns per CLOCK_REALTIME read through libc in `child`: one run of 10 M reads.
double read_ns(Child& child) {
  child.send("bench 10000000");
  return std::stod(child.receive());
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Measured, printed, never asserted (a test cannot know this machine's speed): run with
// IDBENCH_VDSO_MEASURE=1. The three readers run their 5 rounds interleaved, so a change of the
// machine's load touches all three alike.
TEST(VdsoPatchMeasure, ReadCostNativeUnarmedArmedAndPatchTime) {
  if (std::getenv("IDBENCH_VDSO_MEASURE") == nullptr) {
    GTEST_SKIP() << "set IDBENCH_VDSO_MEASURE=1 to measure the cost of a read and of a patch";
  }
  ClockPage unarmed_page;
  ClockPage armed_page;
  const std::int64_t now = plumbing::true_ns();
  armed_page.set_line(now, now - kHour, 1.0);
  ClockPage::Lease lease(armed_page);
  std::vector<double> patch_us;
  for (int i = 0; i < 5; ++i) {
    Child child(reader(), Child::Start::kTracedToExec);
    const std::int64_t start = plumbing::monotonic_ns();
    patch_vdso(child.pid(), {child.pid()}, unarmed_page.path());
    patch_us.push_back(static_cast<double>(plumbing::monotonic_ns() - start) / 1e3);
  }
  Child native(reader(), Child::Start::kUntraced);
  auto unarmed = patched_reader(unarmed_page);
  auto armed = patched_reader(armed_page);
  std::vector<double> native_ns, unarmed_ns, armed_ns;
  for (int round = 0; round < 5; ++round) {
    native_ns.push_back(read_ns(native));
    unarmed_ns.push_back(read_ns(*unarmed));
    armed_ns.push_back(read_ns(*armed));
  }
  const double n = median(native_ns);
  const double u = median(unarmed_ns);
  const double a = median(armed_ns);
  std::printf(
      "CLOCK_REALTIME read through libc, ns (median of 5 runs of 10 M): native %.2f, "
      "patched unarmed %.2f (%.2fx), patched armed %.2f (%.2fx); patch_vdso at an exec "
      "stop: median %.0f us of 5 (min %.0f, max %.0f)\n",
      n, u, u / n, a, a / n, median(patch_us), *std::min_element(patch_us.begin(), patch_us.end()),
      *std::max_element(patch_us.begin(), patch_us.end()));
  expect_offset(read_clocks(*armed), -kHour);  // the armed runs were faked reads
  expect_offset(read_clocks(*unarmed), 0);
}

}  // namespace
}  // namespace idbench::inject
