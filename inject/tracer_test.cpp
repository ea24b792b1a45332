// tracer_test.cpp — idbench-inject end to end on real programs: the raw clock system calls of
// a launched tree read the page's faked clock (a static program, a grandchild through /bin/sh,
// a thread started later) and the harness's marked read does not; SIGSTOP and SIGCONT from
// outside still pause and resume a traced program; a SIGKILLed injector takes what it launched
// with it; an attached process is left running and untraced; bad usage and refusals are one
// line with exit 2 and 3. Each check is also run against a planted defect
// (idbench-inject --plant-defect) and seen to fail.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "fault/testing/shell_nodes.hpp"
#include "inject/clock_page.hpp"
#include "inject/syscall_trap.hpp"
#include "plumbing/beside_self.hpp"
#include "plumbing/child_process.hpp"
#include "plumbing/raw_time.hpp"
#include "plumbing/temp_dir.hpp"

extern char** environ;

namespace idbench::inject {
namespace {

constexpr std::int64_t kTracerSec = 1'000'000'000;
constexpr std::int64_t kHourBack = -3600 * kTracerSec;
// "About" a clock offset: the test's true-time reads bracket the program's within a few ms on
// an idle machine; half a minute leaves room for a loaded one and still tells an hour from 0.
constexpr std::int64_t kSlackNs = 30 * kTracerSec;
constexpr std::int64_t kTwitterEpochMs = 1288834974657;
constexpr std::int64_t kAnswerWaitNs = 10 * kTracerSec;  // a live program answers well within
constexpr std::int64_t kSilenceNs = kTracerSec;          // a paused one must not answer in this

bool about(std::int64_t offset_ns, std::int64_t want_ns) {
  return offset_ns > want_ns - kSlackNs && offset_ns < want_ns + kSlackNs;
}

std::vector<std::string> our_environment() {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
  return env;
}

std::string beside(const char* name) { return plumbing::program_beside_self(name); }

// A clock page: stepped by `step_ns` from now and kept armed while this lives, or unarmed.
class TestPage {
 public:
  explicit TestPage(std::optional<std::int64_t> step_ns) {
    if (!step_ns) return;
    const std::int64_t now = plumbing::true_ns();
    page_.set_line(now, now + *step_ns, 1.0);
    lease_.emplace(page_);
  }
  std::string path() const { return page_.path(); }

 private:
  ClockPage page_;
  std::optional<ClockPage::Lease> lease_;
};

// idbench-inject with `args` after its --page (and a planted defect), stdin and stdout piped.
class Injector {
 public:
  Injector(const TestPage& page, std::vector<std::string> args, const std::string& planted = "")
      : Injector(page.path(), std::move(args), planted) {}
  Injector(const std::string& page_path, std::vector<std::string> args,
           const std::string& planted = "")
      : dir_("idbench-tracer-test") {
    std::vector<std::string> argv = {beside("idbench-inject"), "--page", page_path};
    if (!planted.empty()) argv.insert(argv.end(), {"--plant-defect", planted});
    argv.insert(argv.end(), args.begin(), args.end());
    process_.emplace(argv, our_environment(), dir_.path() + "/inject.err");
  }
  plumbing::ChildProcess& process() { return *process_; }
  std::string err() const { return plumbing::read_text_file(dir_.path() + "/inject.err"); }

 private:
  plumbing::TempDir dir_;
  std::optional<plumbing::ChildProcess> process_;
};

std::vector<std::string> launch(const std::vector<std::string>& command) {
  std::vector<std::string> args = {"--"};
  args.insert(args.end(), command.begin(), command.end());
  return args;
}

// The tracer's own mapping of the page reads what the writer wrote, and the path it gives the
// traced processes maps the same page.
TEST(ClockPageMap, ReadsThePageAndNamesAPathATracedProcessCanMap) {
  TestPage page(kHourBack);
  const ClockPageMap tracer_side(page.path());
  const idbench_clock_view v = tracer_side.view();
  EXPECT_NE(v.deadline_ns, 0);
  const ClockPageMap target_side(tracer_side.path_for_targets());
  EXPECT_EQ(target_side.view().anchor_fake_ns, v.anchor_fake_ns);
  EXPECT_EQ(target_side.view().anchor_true_ns - target_side.view().anchor_fake_ns, -kHourBack);
}

// The offset from true time of the clock an ID program (chaos/testdata/clock_program.c) read
// for its first ID: its timestamp minus the true time read just before asking; nullopt when
// it did not answer.
std::optional<std::int64_t> id_clock_offset_ns(plumbing::ChildProcess& p) {
  const std::int64_t before = plumbing::true_ns();
  p.send_line("3");
  std::optional<std::int64_t> first;
  for (int i = 0; i < 3; ++i) {
    const auto line = p.read_line(plumbing::monotonic_ns() + kAnswerWaitNs);
    if (!line) return std::nullopt;
    const std::uint64_t id = std::stoull(*line);
    const auto ms = static_cast<std::int64_t>(id >> 22) + kTwitterEpochMs;
    if (!first) first = ms * 1'000'000 - before;
  }
  return first;
}

// Launches `command` (an ID program, or a shell that runs one) under idbench-inject with a
// page stepped back an hour: true when the program's clock read an hour back.
bool ids_read_an_hour_back(const std::vector<std::string>& command, const std::string& planted) {
  TestPage page(kHourBack);
  Injector inject(page, launch(command), planted);
  const auto offset = id_clock_offset_ns(inject.process());
  std::cout << "offset seen: " << (offset ? std::to_string(*offset / 1'000'000) + " ms" : "none")
            << "\n";
  inject.process().close_stdin();
  const auto status = inject.process().wait_until(plumbing::monotonic_ns() + kAnswerWaitNs);
  EXPECT_EQ(status.value_or(-1), 0) << inject.err();
  return offset && about(*offset, kHourBack);
}

TEST(IdbenchInject, AStaticRawClockProgramReadsThePagesClock) {
  EXPECT_TRUE(ids_read_an_hour_back({beside("idbench-raw-clock-program")}, ""));
}

TEST(IdbenchInject, APlantedSeccompPathThatDoesNotRewriteIsCaught) {
  EXPECT_FALSE(ids_read_an_hour_back({beside("idbench-raw-clock-program")}, "no-rewrite"));
}

TEST(IdbenchInject, AnUnarmedPageReadsTrueTime) {
  TestPage page(std::nullopt);
  Injector inject(page, launch({beside("idbench-raw-clock-program")}));
  const auto offset = id_clock_offset_ns(inject.process());
  ASSERT_TRUE(offset) << inject.err();
  EXPECT_TRUE(about(*offset, 0)) << *offset;
}

TEST(IdbenchInject, AGrandchildThroughShIsFaked) {
  // The command after the program keeps sh from exec'ing it: sh forks, the child execs.
  EXPECT_TRUE(ids_read_an_hour_back(
      {"/bin/sh", "-c", "\"$0\"; exit $?", beside("idbench-raw-clock-program")}, ""));
}

// What tracer_probe printed: each line's name and its numbers.
std::map<std::string, std::vector<std::int64_t>> probe_reads(const std::string& planted) {
  TestPage page(kHourBack);
  Injector inject(page,
                  launch({beside("idbench-tracer-probe"), "reads",
                          std::to_string(plumbing::kHarnessClockMark)}),
                  planted);
  std::string out, err;
  EXPECT_TRUE(inject.process().read_to_end(out, err, plumbing::monotonic_ns() + kAnswerWaitNs));
  EXPECT_EQ(inject.process().wait_until(plumbing::monotonic_ns() + kAnswerWaitNs), 0)
      << inject.err();
  std::map<std::string, std::vector<std::int64_t>> reads;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string name;
    words >> name;
    for (std::int64_t v = 0; words >> v;) reads[name].push_back(v);
  }
  return reads;
}

TEST(IdbenchInject, EveryRawClockCallIsFakedButTheHarnessMarkedRead) {
  const std::int64_t now = plumbing::true_ns();
  const std::int64_t mono = plumbing::monotonic_ns();
  auto r = probe_reads("");
  ASSERT_EQ(r["raw"].size(), 1u);
  EXPECT_TRUE(about(r["raw"][0] - now, kHourBack)) << r["raw"][0] - now;
  EXPECT_TRUE(about(r["marked"][0] - now, 0)) << "the harness's own read was faked";
  EXPECT_TRUE(about(r["gettimeofday"][0] - now, kHourBack));
  ASSERT_EQ(r["time"].size(), 2u);
  EXPECT_TRUE(about(r["time"][0] * kTracerSec - now, kHourBack)) << r["time"][0];
  EXPECT_EQ(r["time"][0], r["time"][1]) << "time's result and *tloc differ";
  EXPECT_TRUE(about(r["monotonic"][0] - mono, 0)) << "a step moved CLOCK_MONOTONIC";
  EXPECT_TRUE(about(r["thread"][0] - now, kHourBack)) << "a thread started later was not faked";
  // Through libc the vDSO answers, which the seccomp filter never sees: true time until the
  // vDSO patch is applied (printed, not asserted: that patch changes it).
  std::cout << "libc clock_gettime offset: " << (r["libc"][0] - now) / 1'000'000 << " ms\n";
}

TEST(IdbenchInject, APlantedFilterThatTrapsTheHarnessMarkedReadIsCaught) {
  const std::int64_t now = plumbing::true_ns();
  auto r = probe_reads("fake-marked-reads");
  ASSERT_EQ(r["marked"].size(), 1u);
  EXPECT_FALSE(about(r["marked"][0] - now, 0));
}

TEST(IdbenchInject, APlantedSeccompPathThatDoesNotRewriteLeavesEveryRawCallTrue) {
  const std::int64_t now = plumbing::true_ns();
  auto r = probe_reads("no-rewrite");
  ASSERT_EQ(r["raw"].size(), 1u);
  EXPECT_FALSE(about(r["raw"][0] - now, kHourBack));
  EXPECT_FALSE(about(r["thread"][0] - now, kHourBack));
}

// fault_testing::polled with 5 s instead of 1: a signal's effect is seen at once on an idle
// machine, and within this on a loaded one (a sanitizer build beside other tests).
bool patiently_polled(pid_t pid, bool (*wanted)(char)) {
  for (int i = 0; i < 5; ++i) {
    if (fault::fault_testing::polled(pid, wanted)) return true;
  }
  return false;
}

// The launched program of an injector: its child (/proc/PID/task/PID/children).
pid_t launched_child(pid_t inject) {
  const std::string path =
      "/proc/" + std::to_string(inject) + "/task/" + std::to_string(inject) + "/children";
  for (int i = 0; i < 500; ++i) {
    std::ifstream in(path);
    if (pid_t pid = 0; in >> pid) return pid;
    plumbing::sleep_until_mono(plumbing::monotonic_ns() + 10'000'000);
  }
  return 0;
}

struct Pause {
  char state = '?';                   // /proc/PID/stat's letter while paused
  bool answered_while_paused = true;  // a request sent while paused was answered then
  bool answered_after = false;        // ... and after SIGCONT
  bool works() const {
    return (state == 't' || state == 'T') && !answered_while_paused && answered_after;
  }
};

// SIGSTOP, a request, SIGCONT, sent to the traced ID program (`group`: to the group of
// idbench-inject and its program, as fault::ProcessNemesis pauses a node).
Pause pause_and_resume(bool group, const std::string& planted) {
  TestPage page(std::nullopt);
  Injector inject(page, launch({beside("idbench-raw-clock-program")}), planted);
  plumbing::ChildProcess& p = inject.process();
  Pause r;
  const pid_t program = launched_child(p.pid());
  if (program == 0 || !id_clock_offset_ns(p)) return r;  // it runs and answers
  const auto send = [&](int sig) {
    group ? p.signal(sig) : static_cast<void>(::kill(program, sig));
  };
  send(SIGSTOP);
  patiently_polled(program, [](char s) { return s == 't' || s == 'T'; });
  r.state = fault::fault_testing::state_of(program);
  p.send_line("1");
  r.answered_while_paused = p.read_line(plumbing::monotonic_ns() + kSilenceNs).has_value();
  send(SIGCONT);
  r.answered_after =
      r.answered_while_paused || p.read_line(plumbing::monotonic_ns() + kAnswerWaitNs);
  std::cout << "state while paused: '" << r.state << "'\n";
  return r;
}

TEST(IdbenchInject, SigstopAndSigcontFromOutsidePauseAndResumeATracedProgram) {
  const Pause r = pause_and_resume(false, "");
  EXPECT_TRUE(r.works()) << "state '" << r.state << "', answered while paused "
                         << r.answered_while_paused << ", after " << r.answered_after;
}

TEST(IdbenchInject, AGroupSigstopOfInjectorAndProgramPausesAndResumesThem) {
  const Pause r = pause_and_resume(true, "");
  EXPECT_TRUE(r.works()) << "state '" << r.state << "', answered while paused "
                         << r.answered_while_paused << ", after " << r.answered_after;
}

TEST(IdbenchInject, APlantedTracerThatRunsThroughAGroupStopIsCaught) {
  EXPECT_FALSE(pause_and_resume(false, "run-through-group-stop").works());
}

bool gone(pid_t pid) {
  return patiently_polled(pid, [](char s) { return s == '?' || s == 'Z' || s == 'X'; });
}

// SIGKILL to idbench-inject alone: true when the probe it runs as a grandchild (through sh,
// so no parent-death signal reaches it) ends too.
bool sigkill_takes_the_tree(const std::string& planted) {
  TestPage page(kHourBack);
  Injector inject(
      page, launch({"/bin/sh", "-c", "\"$0\" serve; exit $?", beside("idbench-tracer-probe")}),
      planted);
  const auto ready = inject.process().read_line(plumbing::monotonic_ns() + kAnswerWaitNs);
  if (!ready || ready->rfind("ready ", 0) != 0) return false;
  const auto probe = static_cast<pid_t>(std::stol(ready->substr(6)));
  ::kill(inject.process().pid(), SIGKILL);
  inject.process().wait_until(plumbing::monotonic_ns() + kAnswerWaitNs);
  const bool ended = gone(probe);
  if (!ended) ::kill(probe, SIGKILL);  // the planted defect's survivor
  return ended;
}

TEST(IdbenchInject, SigkillOfTheInjectorEndsEverythingItLaunched) {
  EXPECT_TRUE(sigkill_takes_the_tree(""));
}

TEST(IdbenchInject, APlantedLaunchWithoutExitkillIsCaught) {
  EXPECT_FALSE(sigkill_takes_the_tree("no-exitkill"));
}

// The TracerPid of each thread of `pid` (/proc/PID/task/TID/status), each value once.
std::set<long> thread_tracers(pid_t pid) {
  std::set<long> tracers;
  const std::string task_dir = "/proc/" + std::to_string(pid) + "/task";
  for (const auto& thread : std::filesystem::directory_iterator(task_dir)) {
    std::ifstream in(thread.path() / "status");
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("TracerPid:", 0) == 0) tracers.insert(std::stol(line.substr(10)));
    }
  }
  return tracers;
}

// Attaches to a running probe (two threads), then SIGTERM to idbench-inject: true when it
// exited 0 and left every thread of the probe untraced, running and answering.
bool attach_then_sigterm_leaves_it_running(const std::string& planted) {
  plumbing::TempDir dir("idbench-tracer-test");
  plumbing::ChildProcess probe({beside("idbench-tracer-probe"), "serve"}, our_environment(),
                               dir.path() + "/probe.err");
  const auto ready = probe.read_line(plumbing::monotonic_ns() + kAnswerWaitNs);
  if (!ready) return false;
  TestPage page(kHourBack);
  Injector inject(page, {"--pid", std::to_string(probe.pid())}, planted);
  const std::set<long> traced_by_injector = {inject.process().pid()};
  // Its one line on stdout once the patch is in place (what real-chaos waits for).
  EXPECT_EQ(inject.process().read_line(plumbing::monotonic_ns() + kAnswerWaitNs),
            "attached " + std::to_string(probe.pid()))
      << inject.err();
  EXPECT_EQ(thread_tracers(probe.pid()), traced_by_injector) << inject.err();
  probe.send_line("read");  // traced, it answers; its raw calls are not faked (no filter)
  const auto traced = probe.read_line(plumbing::monotonic_ns() + kAnswerWaitNs);
  EXPECT_TRUE(traced && about(std::stoll(*traced) - plumbing::true_ns(), 0));
  ::kill(inject.process().pid(), SIGTERM);
  const auto status = inject.process().wait_until(plumbing::monotonic_ns() + kAnswerWaitNs);
  EXPECT_EQ(status.value_or(-1), 0) << inject.err();
  probe.send_line("read");
  const bool answers = probe.read_line(plumbing::monotonic_ns() + kSilenceNs).has_value();
  const char state = fault::fault_testing::state_of(probe.pid());
  const std::set<long> tracers = thread_tracers(probe.pid());
  std::cout << "after detach: TracerPid " << *tracers.rbegin()
            << " (highest of its threads), state '" << state << "', answers " << answers << "\n";
  return tracers == std::set<long>{0} && state != 't' && state != 'T' && answers;
}

TEST(IdbenchInject, AttachThenSigtermLeavesTheProcessRunningUntraced) {
  EXPECT_TRUE(attach_then_sigterm_leaves_it_running(""));
}

TEST(IdbenchInject, APlantedDetachThatLeavesTheProcessStoppedIsCaught) {
  EXPECT_FALSE(attach_then_sigterm_leaves_it_running("detach-stopped"));
}

// The vDSO patch on a process idbench did not start, and the dead man's switch: attached, its
// libc clock reads are an hour back; after a SIGKILL of the injector nothing traces it (the
// kernel detaches a dead tracer's tracees), it still runs, and once the page's deadline passes
// with nobody renewing it (idbench dead too) it reads true time, patch or not.
TEST(IdbenchInject, AnAttachedProcessReadsThePageUntilTheDeadlineOnceTheInjectorIsKilled) {
  plumbing::TempDir dir("idbench-tracer-test");
  plumbing::ChildProcess reader({beside("idbench-inject-clock-reader")}, our_environment(),
                                dir.path() + "/reader.err");
  const auto libc_offset = [&reader]() -> std::optional<std::int64_t> {
    reader.send_line("read");
    const auto line = reader.read_line(plumbing::monotonic_ns() + kAnswerWaitNs);
    if (!line) return std::nullopt;
    return std::stoll(*line) - plumbing::true_ns();
  };
  ASSERT_TRUE(libc_offset().has_value());  // it runs, and has read its clock once
  ClockPage page;
  const std::int64_t now = plumbing::true_ns();
  page.set_line(now, now + kHourBack, 1.0);
  constexpr std::int64_t kLeaseNs = 3 * kTracerSec;
  page.renew(kLeaseNs);  // renewed by nobody from here on
  const std::int64_t deadline = plumbing::true_ns() + kLeaseNs;
  Injector inject(page.path(), {"--pid", std::to_string(reader.pid())});
  // Traced is not yet patched: its "attached" line says the patch is in place (a loaded
  // machine read the true clock between the two).
  ASSERT_EQ(inject.process().read_line(plumbing::monotonic_ns() + kAnswerWaitNs),
            "attached " + std::to_string(reader.pid()))
      << inject.err();
  ASSERT_EQ(thread_tracers(reader.pid()), std::set<long>{inject.process().pid()}) << inject.err();
  const auto attached = libc_offset();
  ASSERT_TRUE(attached);
  EXPECT_TRUE(about(*attached, kHourBack)) << *attached << " ns, " << inject.err();
  ::kill(inject.process().pid(), SIGKILL);
  inject.process().wait_until(plumbing::monotonic_ns() + kAnswerWaitNs);
  EXPECT_EQ(thread_tracers(reader.pid()), std::set<long>{0});
  ASSERT_GT(deadline, plumbing::true_ns()) << "the machine was too slow to see the fake first";
  plumbing::sleep_until_mono(plumbing::monotonic_ns() + (deadline - plumbing::true_ns()) +
                             100'000'000);
  const auto after = libc_offset();
  ASSERT_TRUE(after) << "the reader stopped answering after the injector's death";
  EXPECT_TRUE(about(*after, 0)) << *after << " ns";
}

plumbing::CommandResult run_to_end(const std::vector<std::string>& argv) {
  plumbing::CommandOptions options;
  options.timeout_ms = 60'000;
  return plumbing::run_command(argv, options);
}

// Runs idbench-inject with `args`; its exit status and stderr.
plumbing::CommandResult inject_with(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {beside("idbench-inject")};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_to_end(argv);
}

bool one_line(const std::string& err) {
  return !err.empty() && std::count(err.begin(), err.end(), '\n') == 1 && err.back() == '\n';
}

// A process paused (SIGSTOP) before the injector attaches cannot run the system calls that
// patch its vDSO, and must not be continued by it: the attach is refused (exit 3, one line),
// and the process stays paused, untraced, and runs again at SIGCONT.
TEST(IdbenchInject, APausedProcessIsRefusedAndLeftPausedAndUntraced) {
  plumbing::TempDir dir("idbench-tracer-test");
  plumbing::ChildProcess probe({beside("idbench-tracer-probe"), "serve"}, our_environment(),
                               dir.path() + "/probe.err");
  ASSERT_TRUE(probe.read_line(plumbing::monotonic_ns() + kAnswerWaitNs));
  ::kill(probe.pid(), SIGSTOP);
  ASSERT_TRUE(patiently_polled(probe.pid(), [](char s) { return s == 'T'; }));
  TestPage page(std::nullopt);
  const plumbing::CommandResult r =
      inject_with({"--page", page.path(), "--pid", std::to_string(probe.pid())});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_TRUE(one_line(r.err)) << r.err;
  EXPECT_EQ(thread_tracers(probe.pid()), std::set<long>{0});
  probe.send_line("read");
  EXPECT_FALSE(probe.read_line(plumbing::monotonic_ns() + kSilenceNs).has_value())
      << "the refused process ran";
  EXPECT_EQ(fault::fault_testing::state_of(probe.pid()), 'T');
  ::kill(probe.pid(), SIGCONT);
  EXPECT_TRUE(probe.read_line(plumbing::monotonic_ns() + kAnswerWaitNs).has_value());
}

TEST(IdbenchInject, BadUsageIsOneLineAndExit2) {
  TestPage page(std::nullopt);
  const std::vector<std::vector<std::string>> bad = {
      {},
      {"--page", page.path()},
      {"--page", page.path(), "--pid", "1", "--", "/bin/true"},
      {"--page", page.path(), "--pid", "abc"},
      {"--page", page.path(), "--pid", "0"},
      {"--page", page.path(), "--plant-defect", "nonsense", "--", "/bin/true"},
      {"--page", "/nonexistent/page", "--", "/bin/true"},
      {"--page", "/etc/hostname", "--", "/bin/true"},
      {"--page", page.path(), "--", "/nonexistent/program"},
  };
  for (const auto& args : bad) {
    const plumbing::CommandResult r = inject_with(args);
    std::string shown;
    for (const auto& a : args) shown += a + " ";
    EXPECT_EQ(r.exit_code, 2) << shown << ": " << r.err;
    EXPECT_TRUE(one_line(r.err)) << shown << ": " << r.err;
  }
}

// A process that does not exist is a refusal (exit 3), as one it may not trace is: the request
// is well formed, and only the kernel can say whether the process is there. A process another
// injector traces already is one the kernel refuses (EPERM).
TEST(IdbenchInject, AttachingToNoProcessOrATracedOneIsARefusal) {
  TestPage page(std::nullopt);
  Injector first(page, launch({beside("idbench-tracer-probe"), "serve"}));
  const auto ready = first.process().read_line(plumbing::monotonic_ns() + kAnswerWaitNs);
  ASSERT_TRUE(ready && ready->rfind("ready ", 0) == 0) << first.err();
  for (const std::string& pid : {std::to_string(INT_MAX), ready->substr(6)}) {
    const plumbing::CommandResult r = inject_with({"--page", page.path(), "--pid", pid});
    EXPECT_EQ(r.exit_code, 3) << pid << ": " << r.err;
    EXPECT_TRUE(one_line(r.err)) << pid << ": " << r.err;
  }
}

TEST(IdbenchInject, AProgramTheKernelCannotExecuteIsOneLineAndExit2) {
  TestPage page(std::nullopt);
  plumbing::TempDir dir("idbench-tracer-test");
  const std::string text = dir.path() + "/not-a-program";
  std::ofstream(text) << "no interpreter line, no ELF header\n";
  std::filesystem::permissions(text, std::filesystem::perms::owner_all);
  const plumbing::CommandResult r = inject_with({"--page", page.path(), "--", text});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(one_line(r.err) && r.err.find("Exec format error") != std::string::npos) << r.err;
}

// SIGTERM to idbench-inject reaches the program it launched, which ends (by it, here), and the
// injector with the program's status.
TEST(IdbenchInject, ASigtermToTheInjectorIsPassedOnToItsProgram) {
  TestPage page(std::nullopt);
  Injector inject(page, launch({beside("idbench-tracer-probe"), "serve"}));
  ASSERT_TRUE(inject.process().read_line(plumbing::monotonic_ns() + kAnswerWaitNs)) << inject.err();
  ::kill(inject.process().pid(), SIGTERM);
  const auto status = inject.process().wait_until(plumbing::monotonic_ns() + kAnswerWaitNs);
  EXPECT_EQ(status.value_or(-1), 128 + SIGTERM) << inject.err();
}

TEST(IdbenchInject, ALaunchedProgramsExitStatusIsTheInjectors) {
  TestPage page(std::nullopt);
  EXPECT_EQ(inject_with({"--page", page.path(), "--", "/bin/sh", "-c", "exit 7"}).exit_code, 7);
  EXPECT_EQ(inject_with({"--page", page.path(), "--", "/bin/sh", "-c", "kill -9 $$"}).exit_code,
            128 + SIGKILL);
}

// The cost of a clock read: the probe's `bench` (raw REALTIME reads, then libc's), untraced and
// under idbench-inject with an unarmed page (the seccomp stop only) and an armed one (the
// seccomp stop and the exit stop where the result is rewritten); the median of 5 runs each.
// Printed for the record, never asserted: only that every run measured something.
TEST(IdbenchInject, MeasuresWhatAClockReadCostsTracedAndNot) {
  TestPage unarmed(std::nullopt);
  TestPage armed(kHourBack);
  struct Setup {
    const char* name;
    std::vector<std::string> prefix;
    long raw_reads;
  };
  const std::string inject = beside("idbench-inject");
  const std::vector<Setup> setups = {
      {"untraced", {}, 200'000},
      {"traced, page unarmed", {inject, "--page", unarmed.path(), "--"}, 5'000},
      {"traced, page armed", {inject, "--page", armed.path(), "--"}, 5'000},
  };
  for (const Setup& s : setups) {
    std::vector<double> raw, libc;
    for (int run = 0; run < 5; ++run) {
      std::vector<std::string> argv = s.prefix;
      argv.insert(argv.end(), {beside("idbench-tracer-probe"), "bench", std::to_string(s.raw_reads),
                               "5000000"});
      const plumbing::CommandResult r = run_to_end(argv);
      std::istringstream words(r.out);
      std::string raw_word, libc_word;
      double raw_ns = 0, libc_ns = 0;
      words >> raw_word >> raw_ns >> libc_word >> libc_ns;
      ASSERT_TRUE(r.exit_code == 0 && raw_word == "raw" && libc_word == "libc") << r.out << r.err;
      raw.push_back(raw_ns);
      libc.push_back(libc_ns);
    }
    std::sort(raw.begin(), raw.end());
    std::sort(libc.begin(), libc.end());
    std::cout << s.name << ": raw syscall(SYS_clock_gettime) " << raw[2]
              << " ns per read, libc clock_gettime " << libc[2] << " ns per read (median of 5)\n";
  }
}

}  // namespace
}  // namespace idbench::inject
