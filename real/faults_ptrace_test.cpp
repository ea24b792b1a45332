// faults_ptrace_test.cpp — uuid-clock-back under --clock-injector ptrace on real mariadbd
// servers, at half speed: the RUNNING servers are attached by idbench-inject once their clients
// issue, stepped back 5 s through the clock page, and detached at the end. Checks that
//   * the probe (the server's own SYSDATE(6)) shows the step, and the step is the clock
//     nemesis's, recorded with its faked time, between the attach and the detach;
//   * the same server process served throughout: one pid at every probe (never restarted);
//   * the verdicts say what the IDs show: UUID()'s time did not follow the wall clock (MariaDB
//     counts it from a monotonic timer since start-up), UUID_SHORT() carries no time and kept
//     its start second; both "kept", neither "fault not applied";
//   * after the run no idbench-inject is left and the servers are gone.
// And uuid-short-restart-behind under ptrace, its servers run under the injector's launch form:
// the restarted server reads the stepped clock from its start (UUID_SHORT() repeats values).
// Skipped when MariaDB is not installed or this process may not trace another (ptrace_scope).
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "plumbing/child_process.hpp"
#include "real/faults.hpp"

namespace idbench::real {
namespace {

// Why this machine cannot run the test, or "" when it can.
std::string ptrace_skip_reason() {
  if (plumbing::find_program("mariadbd").empty()) return "mariadb-server is not installed";
  std::ifstream in("/proc/sys/kernel/yama/ptrace_scope");
  int scope = 0;
  if ((in >> scope) && (scope == 3 || (scope > 0 && geteuid() != 0))) {
    return "ptrace is not permitted here (kernel.yama.ptrace_scope=" + std::to_string(scope) + ")";
  }
  return "";
}

std::string ptrace_why(const FaultRun& run) {
  std::string out = to_text(run);
  for (const FaultPart& p : run.parts) {
    for (const std::string& log : p.server_logs) out += p.system + " log:\n" + log + "\n";
    for (const fault::FaultRecord& e : p.records.events) out += "event: " + e.what + "\n";
  }
  return out;
}

// The idbench-inject processes left: attached to one of `servers` ("--pid PID" in their command
// line), or children of this process even if ended and not reaped (a zombie has no command
// line, but its name and parent), as "pid: what".
std::vector<std::string> injectors_left(const std::vector<pid_t>& servers) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const std::string name = e.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(e.path() / "stat");
    std::string text;
    std::getline(stat, text);
    const std::size_t open = text.find('('), close = text.rfind(')');
    if (open == std::string::npos || close == std::string::npos) continue;
    if (text.substr(open + 1, close - open - 1) != "idbench-inject") continue;
    std::istringstream rest(text.substr(close + 2));
    char state = '?';
    long ppid = 0;
    rest >> state >> ppid;
    if (ppid == ::getpid()) out.push_back(name + ": our child, state " + state);
    std::ifstream in(e.path() / "cmdline");
    std::vector<std::string> argv;
    for (std::string arg; std::getline(in, arg, '\0');) argv.push_back(arg);
    for (std::size_t i = 0; i + 1 < argv.size(); ++i) {
      for (const pid_t s : servers) {
        if (argv[i] == "--pid" && argv[i + 1] == std::to_string(s)) {
          out.push_back(name + ": idbench-inject --pid " + argv[i + 1]);
        }
      }
    }
  }
  return out;
}

bool has_finding(const fault::Verdict& v, const std::string& text) {
  for (const std::string& f : v.findings) {
    if (f.find(text) != std::string::npos) return true;
  }
  return false;
}

// The step, recorded once by the clock nemesis with its faked time, between the harness's
// attach and detach.
void expect_attach_step_detach(const FaultRun& run, const FaultPart& p) {
  ASSERT_EQ(p.records.events.size(), 3u) << ptrace_why(run);
  EXPECT_EQ(p.records.events[0].kind, "harness");
  EXPECT_NE(p.records.events[0].what.find("idbench-inject attached"), std::string::npos);
  const fault::FaultRecord& step = p.records.events[1];
  EXPECT_EQ(step.kind, "fault");
  EXPECT_EQ(step.what, "the servers' wall clock stepped back 5 s");
  ASSERT_TRUE(step.faked_ns.has_value());
  EXPECT_EQ(*step.faked_ns, step.true_ns - 5'000'000'000);
  EXPECT_EQ(p.records.events[2].kind, "harness");
  EXPECT_NE(p.records.events[2].what.find("untraced (TracerPid 0)"), std::string::npos);
}

// The probe before the step reads true time, every probe after it ~5 s back, and each names
// the same server process.
void expect_probes_show_the_step_on_one_server(const FaultRun& run, const FaultPart& p) {
  ASSERT_EQ(p.records.probes.size(), 3u) << ptrace_why(run);
  EXPECT_LT(std::abs(p.records.probes[0].server_minus_true_ms), 1000) << ptrace_why(run);
  for (std::size_t i = 1; i < p.records.probes.size(); ++i) {
    EXPECT_LT(p.records.probes[i].server_minus_true_ms, -4000) << ptrace_why(run);
    EXPECT_GT(p.records.probes[i].server_minus_true_ms, -6000) << ptrace_why(run);
  }
  const std::int64_t pid = p.records.probes[0].server_pid;
  EXPECT_GT(pid, 0);
  for (const ClockProbe& c : p.records.probes) EXPECT_EQ(c.server_pid, pid) << ptrace_why(run);
  EXPECT_TRUE(has_finding(p.verdict, "never restarted: pid " + std::to_string(pid)))
      << ptrace_why(run);
}

// `scenario` at half length under the ptrace injector.
FaultRun run_under_ptrace(const std::string& scenario) {
  FaultOptions o;
  o.time_scale = 0.5;
  o.clock_injector = chaos::ClockInjector::ptrace;
  return run_fault_scenario(scenario, o);
}

TEST(FaultsUnderPtrace, ARunningServersStepBackReachesItsWallClockButNotUuidTime) {
  if (const std::string why = ptrace_skip_reason(); !why.empty()) GTEST_SKIP() << why;
  const FaultRun run = run_under_ptrace("uuid-clock-back");
  ASSERT_EQ(run.parts.size(), 2u) << ptrace_why(run);
  std::vector<pid_t> servers;
  for (const FaultPart& p : run.parts) {
    EXPECT_EQ(fault::name_of(p.verdict.outcome), "kept") << ptrace_why(run);
    expect_attach_step_detach(run, p);
    expect_probes_show_the_step_on_one_server(run, p);
    if (!p.records.probes.empty())
      servers.push_back(static_cast<pid_t>(p.records.probes[0].server_pid));
    EXPECT_TRUE(has_finding(p.verdict, "after the detach")) << ptrace_why(run);
  }
  const FaultPart& uuid = run.parts[0];
  EXPECT_EQ(uuid.system, "mariadb-uuid");
  EXPECT_NE(uuid.verdict.evidence.find("did not follow the wall clock: it advances with a "
                                       "monotonic clock since start-up"),
            std::string::npos)
      << ptrace_why(run);
  const FaultPart& shortid = run.parts[1];
  EXPECT_EQ(shortid.system, "mariadb-uuid-short");
  EXPECT_NE(shortid.verdict.evidence.find("carry no time"), std::string::npos) << ptrace_why(run);
  // Nothing left: the injectors ended at the detach, the servers with the run.
  EXPECT_EQ(injectors_left(servers), std::vector<std::string>{});
  for (const pid_t pid : servers) {
    EXPECT_TRUE(::kill(pid, 0) != 0 && errno == ESRCH)
        << "server pid " << pid << " outlived the run";
  }
}

// uuid-short-restart-behind under ptrace: the servers run under idbench-inject from their first
// instruction, so the restarted one reads its start second from the stepped page: the probe
// after the restart is behind, UUID_SHORT() repeats the first start's values (DUPLICATES, the
// finding), and no injector is left.
TEST(FaultsUnderPtrace, AServerRestartedUnderTheInjectorReadsTheSteppedClockFromItsStart) {
  if (const std::string why = ptrace_skip_reason(); !why.empty()) GTEST_SKIP() << why;
  const FaultRun run = run_under_ptrace("uuid-short-restart-behind");
  ASSERT_EQ(run.parts.size(), 2u) << ptrace_why(run);
  std::vector<pid_t> servers;
  for (const FaultPart& p : run.parts) {
    ASSERT_EQ(p.records.probes.size(), 1u) << ptrace_why(run);
    EXPECT_LT(p.records.probes[0].server_minus_true_ms, -500) << ptrace_why(run);
    servers.push_back(static_cast<pid_t>(p.records.probes[0].server_pid));
  }
  EXPECT_EQ(run.parts[0].system, "mariadb-uuid-short");
  EXPECT_EQ(fault::name_of(run.parts[0].verdict.outcome), "DUPLICATES") << ptrace_why(run);
  EXPECT_EQ(injectors_left(servers), std::vector<std::string>{});
}

}  // namespace
}  // namespace idbench::real
