// idbench-inject — runs a program, or attaches to a running process, with its clock read from a
// faked clock's page (clock_page.h), by ptrace: for programs libfaketime cannot reach (Go,
// static binaries, raw clock system calls, a server already running). Every traced image's
// vDSO clock_gettime, gettimeofday and time jump to a trampoline that reads the page
// (vdso_patch.hpp); a vDSO it does not recognise is refused, exit 3.
//
//   idbench-inject --page PATH -- PROG ARGS...   launches PROG traced, fakes its whole tree
//                                                (every thread and child), exits with its status
//   idbench-inject --page PATH --pid PID         attaches to PID until SIGINT, SIGTERM or SIGHUP,
//                                                or until PID ends, then detaches and exits 0;
//                                                once every thread of PID reads the page it
//                                                prints "attached PID" on stdout (a launched
//                                                program's stdout is its own: nothing is added)
//
// PATH is a file that maps the page, e.g. /proc/<idbench pid>/fd/<n>; the traced processes map
// it through this process's own descriptor. In a launched tree the raw clock system calls are
// faked (syscall_trap.hpp); in an attached process they are not (tracer.hpp says why). SIGINT,
// SIGTERM and SIGHUP are passed on to a launched program, which ends as it chooses (one sent
// to the whole process group, a terminal's ^C, reaches it twice: from the sender and passed
// on). Exit statuses: the program's (launch), 0 (attach), 2 bad usage or a page that cannot be
// read, 3 a process it refuses to trace (not x86-64, no permission, no such process).
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "inject/syscall_trap.hpp"
#include "inject/tracer.hpp"
#include "inject/vdso.hpp"
#include "inject/vdso_patch.hpp"
#include "plumbing/error.hpp"
#include "plumbing/exit_codes.hpp"

extern char** environ;

namespace {

const std::map<std::string, idbench::inject::PlantedDefect> kPlantedDefects = {
    {"none", idbench::inject::PlantedDefect::none},
    {"no-rewrite", idbench::inject::PlantedDefect::no_rewrite},
    {"run-through-group-stop", idbench::inject::PlantedDefect::run_through_group_stop},
    {"no-exitkill", idbench::inject::PlantedDefect::no_exitkill},
    {"detach-stopped", idbench::inject::PlantedDefect::detach_stopped},
    {"fake-marked-reads", idbench::inject::PlantedDefect::fake_marked_reads},
};

struct Request {
  std::string page_path;
  pid_t pid = 0;
  std::vector<std::string> command;
  std::string planted = "none";
};

std::vector<std::string> environment() {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
  return env;
}

// A process in a group stop (SIGSTOP) cannot run the system calls that patch its vDSO until it
// is continued, and idbench must not continue a process it did not stop: it is refused, left
// stopped and untraced.
void refuse_if_stopped(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const std::size_t paren = text.rfind(')');
  if (paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] == 'T') {
    throw idbench::inject::Refusal(fmt::format(
        "process {} is stopped (SIGSTOP): its clock can be faked only while it runs; continue "
        "it (SIGCONT) first",
        pid));
  }
}

int run(const Request& r) {
  const idbench::inject::ClockPageMap page(r.page_path);
  idbench::inject::Tracer tracer(&page, {SIGINT, SIGTERM, SIGHUP}, kPlantedDefects.at(r.planted));
  // Each traced image's vDSO clock functions jump to the trampoline: at its exec (a fork
  // inherits its parent's patch with the memory), or once attached, undone at the detach.
  std::map<pid_t, idbench::inject::VdsoPatch> patches;
  const std::string target_page = page.path_for_targets();
  const auto patch = [&](pid_t pid, const std::vector<pid_t>& threads) {
    patches[pid] = idbench::inject::patch_vdso(pid, threads, target_page);
  };
  tracer.on_exec = patch;
  tracer.on_attach = patch;
  tracer.on_detach = [&](pid_t pid, const std::vector<pid_t>&) {
    if (const auto it = patches.find(pid); it != patches.end()) {
      idbench::inject::unpatch_vdso(pid, it->second);
      patches.erase(it);
    }
  };
  if (r.pid != 0) {
    refuse_if_stopped(r.pid);
    tracer.attach(r.pid);
    // Whoever started the injector learns that the patch is in place before it moves the page.
    fmt::print("attached {}\n", r.pid);
    std::fflush(stdout);
  } else {
    tracer.launch(r.command, environment());
  }
  return tracer.run();
}

}  // namespace

int main(int argc, char** argv) {
  Request r;
  CLI::App app{
      "idbench-inject: run a program, or attach to a process, with a faked clock "
      "(ptrace; x86-64 Linux)"};
  app.add_option("--page", r.page_path, "a file that maps the faked clock's page")->required();
  CLI::Option* pid =
      app.add_option("--pid", r.pid, "attach to this running process")->check(CLI::PositiveNumber);
  CLI::Option* command =
      app.add_option("command", r.command, "the program to launch and its arguments, after --");
  pid->excludes(command);
  app.add_option("--plant-defect", r.planted, "a planted defect, for the tests")
      ->check(CLI::IsMember(kPlantedDefects))
      ->group("Testing");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "idbench-inject: {} (run with --help for usage)\n",
               idbench::one_line(e.what()));
    return idbench::kExitBadInput;
  }
  if (r.pid == 0 && r.command.empty()) {
    fmt::print(stderr, "idbench-inject: give --pid PID or -- PROG ARGS... (run with --help)\n");
    return idbench::kExitBadInput;
  }
  try {
    return run(r);
  } catch (const idbench::inject::Refusal& e) {
    fmt::print(stderr, "idbench-inject: {}\n", idbench::one_line(e.what()));
    return idbench::kExitRefused;
  } catch (const std::exception& e) {
    fmt::print(stderr, "idbench-inject: {}\n", idbench::one_line(e.what()));
    return idbench::kExitBadInput;
  }
}
