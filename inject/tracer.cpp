// tracer.cpp — the one thread that owns a traced process tree (tracer.hpp).
#include "inject/tracer.hpp"

#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <set>
#include <utility>

#include "plumbing/child_process.hpp"

namespace idbench::inject {
namespace {

constexpr int kSyscallStop = SIGTRAP | 0x80;  // PTRACE_O_TRACESYSGOOD

// What the launched child reports on its pipe when it cannot become the program.
enum LaunchStage : int { kStagePrctl = 1, kStageFilter = 2, kStageExec = 3 };

struct LaunchPlan {
  const char* path;
  char* const* argv;
  char* const* envp;
  const ClockFilter* filter;
  sigset_t mask;
  pid_t parent;
  int report_fd;
};

[[noreturn]] void report_and_exit(int fd, int stage, int error) {
  const int message[2] = {stage, error};
  [[maybe_unused]] const ssize_t n = ::write(fd, message, sizeof message);
  ::_exit(127);
}

// Between fork and exec, in a child of a possibly multithreaded process: async-signal-safe
// calls only, nothing allocated.
[[noreturn]] void become_program(const LaunchPlan& p) {
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) report_and_exit(p.report_fd, kStagePrctl, errno);
  if (::getppid() != p.parent) ::_exit(127);  // the tracer died before the line above
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    report_and_exit(p.report_fd, kStagePrctl, errno);
  }
  if (const int e = p.filter->install(); e != 0) report_and_exit(p.report_fd, kStageFilter, e);
  ::raise(SIGSTOP);  // the tracer seizes this process here, then sends SIGCONT
  ::sigprocmask(SIG_SETMASK, &p.mask, nullptr);
  ::execve(p.path, p.argv, p.envp);
  report_and_exit(p.report_fd, kStageExec, errno);
}

std::vector<char*> c_strings(const std::vector<std::string>& v) {
  std::vector<char*> out;
  for (const std::string& s : v) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

// A number from /proc/TID/status ("Tgid:", "TracerPid:"), or nullopt.
std::optional<long> status_field(pid_t tid, const std::string& field) {
  std::ifstream in("/proc/" + std::to_string(tid) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(field, 0) == 0) return std::strtol(line.c_str() + field.size(), nullptr, 10);
  }
  return std::nullopt;
}

std::vector<pid_t> threads_listed(pid_t pid) {
  std::vector<pid_t> out;
  DIR* dir = ::opendir(("/proc/" + std::to_string(pid) + "/task").c_str());
  if (dir == nullptr) return out;
  while (const dirent* e = ::readdir(dir)) {
    if (e->d_name[0] >= '0' && e->d_name[0] <= '9') {
      out.push_back(static_cast<pid_t>(std::strtol(e->d_name, nullptr, 10)));
    }
  }
  ::closedir(dir);
  return out;
}

std::string program_of(pid_t pid) {
  char buf[4096];
  const std::string link = "/proc/" + std::to_string(pid) + "/exe";
  const ssize_t n = ::readlink(link.c_str(), buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "an unknown program";
}

// Refuses a process whose program is not a 64-bit x86-64 ELF: its system calls are another
// architecture's, which the filter lets pass, and its vDSO is not the one patched.
void require_x86_64(pid_t pid) {
  const std::string path = "/proc/" + std::to_string(pid) + "/exe";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    throw Refusal("cannot read the program of process " + std::to_string(pid) + ": " +
                       std::strerror(errno));
  }
  Elf64_Ehdr h{};
  const ssize_t n = ::read(fd, &h, sizeof h);
  ::close(fd);
  if (n != static_cast<ssize_t>(sizeof h) || std::memcmp(h.e_ident, ELFMAG, SELFMAG) != 0 ||
      h.e_ident[EI_CLASS] != ELFCLASS64 || h.e_machine != EM_X86_64) {
    throw Refusal("process " + std::to_string(pid) + " runs " + program_of(pid) +
                       ", which is not an x86-64 program: its clock cannot be faked");
  }
}

const char* stage_name(int stage) {
  switch (stage) {
    case kStagePrctl:
      return "cannot set its parent-death signal or no_new_privs";
    case kStageFilter:
      return "cannot install the clock filter (seccomp)";
    default:
      return "cannot execute it";
  }
}

}  // namespace

Tracer::Tracer(const ClockPageMap* page, std::vector<int> stop_signals, PlantedDefect planted)
    : page_(page), planted_(planted), filter_(planted != PlantedDefect::fake_marked_reads) {
  sigemptyset(&wait_set_);
  sigemptyset(&stop_set_);
  sigaddset(&wait_set_, SIGCHLD);
  for (const int s : stop_signals) {
    sigaddset(&wait_set_, s);
    sigaddset(&stop_set_, s);
  }
  ::pthread_sigmask(SIG_BLOCK, &wait_set_, &old_mask_);
  struct sigaction child {};
  ::sigaction(SIGCHLD, nullptr, &child);
  if (child.sa_handler == SIG_IGN || (child.sa_flags & (SA_NOCLDSTOP | SA_NOCLDWAIT)) != 0) {
    child = {};
    child.sa_handler = SIG_DFL;
    ::sigaction(SIGCHLD, &child, nullptr);
  }
}

Tracer::~Tracer() {
  try {
    detach();
  } catch (...) {  // a destructor has no one to tell
  }
  if (launched_ && !tasks_.empty()) {
    // As PTRACE_O_EXITKILL does when the tracer ends: each traced task reports its end here
    // before its parent may reap it, so every report is taken.
    for (const auto& [tid, t] : tasks_) ::kill(tid, SIGKILL);
    for (int status = 0;;) {
      if (::waitpid(-1, &status, __WALL | __WNOTHREAD) < 0 && errno != EINTR) break;
    }
  }
  if (launch_report_fd_ >= 0) ::close(launch_report_fd_);
  ::pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
}

unsigned long Tracer::seize_options() const {
  unsigned long options = PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE |
                          PTRACE_O_TRACEEXEC | PTRACE_O_TRACESECCOMP | PTRACE_O_TRACESYSGOOD;
  if (launched_ && planted_ != PlantedDefect::no_exitkill) options |= PTRACE_O_EXITKILL;
  return options;
}

pid_t Tracer::launch(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  if (root_ != 0) throw Error("a tracer launches or attaches once");
  if (argv.empty() || argv[0].empty()) throw Error("no program to run");
  const std::string path =
      argv[0].find('/') == std::string::npos ? plumbing::find_program(argv[0]) : argv[0];
  if (path.empty() || ::access(path.c_str(), X_OK) != 0) {
    throw Error(argv[0] + ": no such program, or it is not executable");
  }
  program_ = argv[0];
  const std::vector<char*> c_argv = c_strings(argv);
  const std::vector<char*> c_env = c_strings(env);
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) throw Error(std::string("pipe: ") + std::strerror(errno));
  const LaunchPlan plan{path.c_str(), c_argv.data(), c_env.data(), &filter_,
                        old_mask_,    ::getpid(),    report[1]};
  const pid_t pid = ::fork();
  if (pid == 0) become_program(plan);
  const int fork_error = errno;
  ::close(report[1]);
  launch_report_fd_ = report[0];
  if (pid < 0) throw Error(std::string("fork: ") + std::strerror(fork_error));
  launched_ = true;
  int status = 0;
  while (::waitpid(pid, &status, WSTOPPED | __WALL) < 0 && errno == EINTR) {
  }
  if (!WIFSTOPPED(status)) throw Error(launch_failure().value_or(program_ + " ended at once"));
  if (::ptrace(PTRACE_SEIZE, pid, nullptr, reinterpret_cast<void*>(seize_options())) != 0) {
    const int e = errno;
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, __WALL);
    throw Refusal("cannot trace " + program_ + ": " + std::strerror(e));
  }
  tasks_.emplace(pid, Task{pid});
  root_ = pid;
  ::kill(pid, SIGCONT);  // ends the stop it put itself in; from now on every stop is seen
  return pid;
}

std::optional<std::string> Tracer::launch_failure() {
  int message[2] = {0, 0};
  if (launch_report_fd_ < 0 ||
      ::read(launch_report_fd_, message, sizeof message) != static_cast<ssize_t>(sizeof message)) {
    return std::nullopt;  // it reached exec: the pipe closed with nothing on it
  }
  return "cannot run " + program_ + ": " + stage_name(message[0]) + ": " +
         std::strerror(message[1]);
}

void Tracer::attach(pid_t pid) {
  if (root_ != 0) throw Error("a tracer launches or attaches once");
  if (pid <= 0 || (::kill(pid, 0) != 0 && errno == ESRCH)) {
    throw Refusal("no process " + std::to_string(pid));
  }
  if (const auto tgid = status_field(pid, "Tgid:"); tgid && *tgid != pid) {
    throw Refusal(std::to_string(pid) + " is a thread of process " + std::to_string(*tgid) +
                       ", not a process");
  }
  require_x86_64(pid);
  root_ = pid;
  seize_threads(pid);
  stop_process(pid);
  try {
    if (on_attach) on_attach(pid, threads_of(pid));
  } catch (...) {
    detach_process(pid, false);
    throw;
  }
  release(pid);
}

// Seizes every thread of `pid`, listing them again until no new one appears (a thread not yet
// seized may start another; one already seized brings its new threads with it).
void Tracer::seize_threads(pid_t pid) {
  std::set<pid_t> seen;
  for (bool grew = true; grew;) {
    grew = false;
    for (const pid_t tid : threads_listed(pid)) {
      if (!seen.insert(tid).second) continue;
      grew = true;
      if (::ptrace(PTRACE_SEIZE, tid, nullptr, reinterpret_cast<void*>(seize_options())) != 0) {
        const int e = errno;
        if (e == ESRCH) continue;  // it ended meanwhile
        // EPERM for a thread a seized one started: it is ours already
        if (!(e == EPERM && status_field(tid, "TracerPid:") == ::getpid())) {
          if (!tasks_.empty()) detach_process(pid, false);
          throw Refusal("cannot trace process " + std::to_string(pid) + ": " +
                             std::strerror(e));
        }
      }
      task(tid);
    }
  }
  if (tasks_.empty()) throw Refusal("no process " + std::to_string(pid));
}

void Tracer::detach() {
  if (launched_) return;  // a launched tree ends with the run
  std::set<pid_t> tgids;
  for (const auto& [tid, t] : tasks_) tgids.insert(t.tgid);
  std::exception_ptr first;
  for (const pid_t tgid : tgids) {
    try {
      detach_process(tgid, true);
    } catch (...) {
      if (!first) first = std::current_exception();
    }
  }
  if (first) std::rethrow_exception(first);
}

// Stops every thread of `tgid`, runs on_detach (when asked), and detaches each one, passing
// on a signal it was stopped for. A group-stopped process stays stopped: the kernel puts a
// detached thread back into the group stop still in effect.
void Tracer::detach_process(pid_t tgid, bool run_hook) {
  stop_process(tgid);
  std::exception_ptr hook_error;
  if (run_hook && on_detach) {
    try {
      on_detach(tgid, threads_of(tgid));
    } catch (...) {
      hook_error = std::current_exception();
    }
  }
  for (auto it = tasks_.begin(); it != tasks_.end();) {
    if (it->second.tgid != tgid) {
      ++it;
      continue;
    }
    const Task& t = it->second;
    const long sig = t.parked && t.parked->request == PTRACE_CONT ? t.parked->signal : 0;
    if (!t.vanished) ::ptrace(PTRACE_DETACH, it->first, nullptr, reinterpret_cast<void*>(sig));
    it = tasks_.erase(it);
  }
  holding_.reset();
  if (planted_ == PlantedDefect::detach_stopped) ::kill(tgid, SIGSTOP);
  if (hook_error) std::rethrow_exception(hook_error);
}

// Holds every thread of `tgid` in a ptrace stop: each running one is interrupted, and the
// loop runs (other processes' stops are handled as usual) until each has stopped or ended.
void Tracer::stop_process(pid_t tgid) {
  holding_ = tgid;
  for (auto& [tid, t] : tasks_) {
    if (t.tgid == tgid && !t.parked && !t.vanished &&
        ::ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr) != 0) {
      t.vanished = true;
    }
  }
  const auto held = [&] {
    return std::all_of(tasks_.begin(), tasks_.end(), [&](const auto& e) {
      return e.second.tgid != tgid || e.second.parked || e.second.vanished;
    });
  };
  while (!held()) step();
}

void Tracer::release(pid_t tgid) {
  holding_.reset();
  for (auto& [tid, t] : tasks_) {
    if (t.tgid != tgid || !t.parked) continue;
    const Resume how = *t.parked;
    t.parked.reset();
    continue_task(tid, t, how);
  }
}

std::vector<pid_t> Tracer::threads_of(pid_t tgid) const {
  std::vector<pid_t> out;
  for (const auto& [tid, t] : tasks_) {
    if (t.tgid == tgid && !t.vanished) out.push_back(tid);
  }
  std::sort(out.begin(), out.end());
  return out;
}

int Tracer::run() {
  while (!root_status_ && !tasks_.empty()) {
    step();
    if (stop_signal_ != 0) on_stop_signal(std::exchange(stop_signal_, 0));
  }
  if (!launched_) {
    detach();  // what the attached process started and left
    return 0;
  }
  if (!root_status_) throw Error("every traced process vanished without an exit report");
  if (*root_status_ == 127) {
    if (auto failure = launch_failure()) throw Error(*failure);
  }
  return *root_status_;
}

void Tracer::on_stop_signal(int signal) {
  if (launched_) {
    ::kill(root_, signal);  // the program ends as it chooses, and the run with it
    return;
  }
  detach();
}

// One event handled, or a sleep until a SIGCHLD or a stop signal wakes the tracer (or the
// poll ends). A SIGCHLD that comes between the waitpid and the sleep stays pending, blocked,
// and ends the sleep at once: no event waits for the poll.
void Tracer::step() {
  int status = 0;
  const pid_t tid = ::waitpid(-1, &status, __WALL | __WNOTHREAD | WNOHANG);
  if (tid > 0) return dispatch(tid, status);
  if (tid < 0 && errno == ECHILD) {
    tasks_.clear();  // nothing traced is left
    return;
  }
  if (tid < 0 && errno != EINTR) throw Error(std::string("waitpid: ") + std::strerror(errno));
  const timespec poll{0, kPollNs};
  siginfo_t info{};
  const int sig = ::sigtimedwait(&wait_set_, &info, &poll);
  if (sig > 0 && sigismember(&stop_set_, sig)) stop_signal_ = sig;
}

Tracer::Task& Tracer::task(pid_t tid) {
  auto it = tasks_.find(tid);
  if (it == tasks_.end()) {
    const pid_t tgid = static_cast<pid_t>(status_field(tid, "Tgid:").value_or(tid));
    it = tasks_.emplace(tid, Task{tgid}).first;
  }
  return it->second;
}

void Tracer::dispatch(pid_t tid, int status) {
  if (WIFEXITED(status) || WIFSIGNALED(status)) return on_exit_report(tid, status);
  if (!WIFSTOPPED(status)) return;
  Task& t = task(tid);
  t.vanished = false;
  const int sig = WSTOPSIG(status);
  if (sig == kSyscallStop) return on_syscall_stop(tid, t);
  switch (status >> 16) {
    case 0:
      return resume(tid, t, {PTRACE_CONT, sig});  // signal-delivery stop: pass it on
    case PTRACE_EVENT_STOP:
      return on_event_stop(tid, t, sig);
    case PTRACE_EVENT_SECCOMP:
      return on_seccomp_stop(tid, t);
    case PTRACE_EVENT_EXEC:
      return on_exec_stop(tid);
    case PTRACE_EVENT_FORK:
    case PTRACE_EVENT_VFORK:
    case PTRACE_EVENT_CLONE:
      return on_new_task_stop(tid, t);
    default:
      return resume(tid, t, {PTRACE_CONT, 0});
  }
}

void Tracer::on_exit_report(pid_t tid, int status) {
  tasks_.erase(tid);
  if (tid == root_) root_status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// The filter stopped a clock call before it ran: note it and let it run to its exit stop
// (resume turns the PTRACE_CONT into PTRACE_SYSCALL while a call is pending). An unarmed page
// fakes nothing, so the call then runs on without its second stop.
void Tracer::on_seccomp_stop(pid_t tid, Task& t) {
  unsigned long message = 0;
  ::ptrace(PTRACE_GETEVENTMSG, tid, nullptr, &message);
  const ClockCall call = clock_call_of(message);
  if (launched_ && page_ != nullptr && call != ClockCall::none && page_->view().deadline_ns != 0) {
    t.pending = call;
  }
  resume(tid, t, {PTRACE_CONT, 0});
}

void Tracer::on_syscall_stop(pid_t tid, Task& t) {
  const ClockCall call = std::exchange(t.pending, ClockCall::none);
  if (call != ClockCall::none && planted_ != PlantedDefect::no_rewrite) {
    fake_clock_result(tid, call, page_->view());
  }
  resume(tid, t, {PTRACE_CONT, 0});
}

// PTRACE_EVENT_STOP: a group stop (a stop signal) is held with PTRACE_LISTEN, so the process
// stays stopped until someone sends SIGCONT; any other (PTRACE_INTERRUPT, a new task's first
// stop, the wake-up after SIGCONT) is continued.
void Tracer::on_event_stop(pid_t tid, Task& t, int signal) {
  const bool group_stop =
      signal == SIGSTOP || signal == SIGTSTP || signal == SIGTTIN || signal == SIGTTOU;
  if (group_stop && planted_ != PlantedDefect::run_through_group_stop) {
    return resume(tid, t, {PTRACE_LISTEN, 0});
  }
  resume(tid, t, {PTRACE_CONT, 0});
}

// A new image: one thread, the leader (a thread that execs takes the leader's id; its former
// id is the event message). A refusal leaves it held (parked) so a detach can still take it.
void Tracer::on_exec_stop(pid_t tid) {
  unsigned long former = 0;
  ::ptrace(PTRACE_GETEVENTMSG, tid, nullptr, &former);
  if (static_cast<pid_t>(former) != tid) tasks_.erase(static_cast<pid_t>(former));
  Task& t = task(tid);
  t.tgid = tid;
  t.pending = ClockCall::none;
  try {
    require_x86_64(tid);
    if (on_exec) on_exec(tid, {tid});
  } catch (...) {
    t.parked = Resume{PTRACE_CONT, 0};
    throw;
  }
  resume(tid, t, {PTRACE_CONT, 0});
}

// fork, vfork, clone: the new task is traced already; it is tracked here (its first stop
// may have come first, and made it known then).
void Tracer::on_new_task_stop(pid_t tid, Task& t) {
  unsigned long child = 0;
  if (::ptrace(PTRACE_GETEVENTMSG, tid, nullptr, &child) == 0 && child != 0) {
    task(static_cast<pid_t>(child));
  }
  resume(tid, t, {PTRACE_CONT, 0});
}

void Tracer::resume(pid_t tid, Task& t, Resume how) {
  if (how.request == PTRACE_CONT && t.pending != ClockCall::none) how.request = PTRACE_SYSCALL;
  if (holding_ && *holding_ == t.tgid) {
    t.parked = how;
    return;
  }
  continue_task(tid, t, how);
}

void Tracer::continue_task(pid_t tid, Task& t, Resume how) {
  const auto request = static_cast<__ptrace_request>(how.request);
  if (::ptrace(request, tid, nullptr, reinterpret_cast<void*>(static_cast<long>(how.signal))) ==
      0) {
    return;
  }
  // ESRCH: it is being killed, and its exit report comes next. A refused PTRACE_LISTEN (the
  // group stop ended before it) lets it run.
  if (errno != ESRCH && how.request == PTRACE_LISTEN &&
      ::ptrace(PTRACE_CONT, tid, nullptr, nullptr) == 0) {
    return;
  }
  t.vanished = true;
}

}  // namespace idbench::inject
