// tracer.hpp — the one thread that owns a traced process tree: it launches a program (or
// attaches to a running process), follows every thread and child it creates, fakes the raw
// clock system calls of a launched tree, passes signals on so SIGSTOP and SIGCONT from anyone
// still pause and resume it, and calls the hooks that patch a process's vDSO.
//
//   ClockPageMap page(path);
//   Tracer tracer(&page, {SIGINT, SIGTERM});
//   tracer.on_exec = [&](pid_t pid, const std::vector<pid_t>& threads) { ...patch its vDSO... };
//   tracer.launch({"/usr/bin/prog", "arg"}, env);   // or tracer.attach(pid)
//   const int status = tracer.run();                // the program's exit status (128 + signal)
//
// Launched (`launch`): the child sets PR_SET_PDEATHSIG (SIGKILL) and PR_SET_NO_NEW_PRIVS (a
// set-user-ID program in the tree gains no privilege), installs the ClockFilter
// (syscall_trap.hpp), stops itself and execs; the tracer seizes it with
// PTRACE_O_EXITKILL, so the whole tree is SIGKILLed when the tracer ends, even by SIGKILL.
// Its raw clock calls (clock_gettime, gettimeofday, time) read the page's faked clock.
//
// Attached (`attach`): every thread of the process is seized and interrupted, `on_attach` runs
// with all of them stopped, and they are resumed. No EXITKILL and no seccomp filter: a filter
// cannot be removed, and once no tracer is left its traced calls fail with ENOSYS. So the RAW
// CLOCK SYSTEM CALLS OF AN ATTACHED PROCESS ARE NOT FAKED: only what the vDSO patch reaches
// (the libc and vDSO entry points) reads the faked clock. `detach` stops every thread of each
// traced process, runs `on_detach` (which undoes the patch) and detaches them, leaving each
// process as it found it: running, or stopped if someone stopped it.
//
// Stops, one handler each (tracer.cpp): exec → `on_exec(pid, {pid})` (the new image has one
// thread); fork, vfork, clone → the new task is tracked (it starts traced); seccomp → the call
// is noted and run to its exit stop, where its result is rewritten; signal-delivery → the
// signal is passed on; group-stop (PTRACE_EVENT_STOP with a stop signal) → PTRACE_LISTEN, so the
// process really stays stopped until someone sends SIGCONT. A stopped tracee shows state 't'
// (tracing stop) in /proc/PID/stat, not 'T': a traced process's group stop is a ptrace stop.
//
// The stop signals given to the constructor (idbench-inject: SIGINT, SIGTERM, SIGHUP): in a
// launched tree they are passed on to the program, which ends as it chooses (and the run with
// it); an attached one is detached and `run` returns 0.
//
// Waiting: the tracer blocks SIGCHLD and the stop signals in its thread and sleeps in
// sigtimedwait between events (waitpid cannot also wait for a signal). Every ptrace stop and
// every traced task's end sends the tracer SIGCHLD, so the poll (kPollNs) is only a backstop:
// another thread of the process that leaves SIGCHLD unblocked may take that wake-up, and the
// tracer then sees the event up to kPollNs late; block SIGCHLD before starting threads. A
// SIGCHLD that is ignored (SIG_IGN, which exec keeps, or SA_NOCLDSTOP, SA_NOCLDWAIT) would
// hide stops and reap the program, so the constructor sets it back to SIG_DFL. It waits with
// __WNOTHREAD, so children of other threads of its process are not its business.
//
// A SIGSTOP sent to the tracer's whole process group (a pause of the node it runs in) stops
// the tracer too: its tracees then wait in ptrace stops ('t') until SIGCONT resumes them all,
// and a stop signal passed on after that SIGCONT stops nothing (the kernel drops it).
//
// Thread safety: thread-compatible, and more: every member must be called on the thread that
// constructed the Tracer (the kernel takes ptrace requests only from the tracing thread).
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "inject/syscall_trap.hpp"
#include "inject/vdso.hpp"
#include "plumbing/error.hpp"

namespace idbench::inject {

// Defects the tests plant to see their checks fail (idbench-inject --plant-defect). Never set
// outside a test.
enum class PlantedDefect {
  none,
  no_rewrite,              // raw clock calls are trapped but their results left true
  run_through_group_stop,  // a group stop is continued (PTRACE_CONT) instead of PTRACE_LISTEN
  no_exitkill,             // launched without PTRACE_O_EXITKILL
  detach_stopped,          // each process is sent SIGSTOP once detached: left stopped
  fake_marked_reads,       // the filter traps the harness's marked reads too
};

class Tracer {
 public:
  using ProcessHook = std::function<void(pid_t pid, const std::vector<pid_t>& stopped_threads)>;
  ProcessHook on_exec, on_attach, on_detach;

  // How long the loop sleeps at most when no SIGCHLD wakes it (see Waiting above).
  static constexpr std::int64_t kPollNs = 100'000'000;

  // `page`: what a launched tree's raw clock calls read (may be null for attach only).
  // Blocks SIGCHLD and `stop_signals` in this thread until destroyed; an ignored SIGCHLD is
  // set back to SIG_DFL (process-wide), for good.
  explicit Tracer(const ClockPageMap* page, std::vector<int> stop_signals = {},
                  PlantedDefect planted = PlantedDefect::none);
  // Detaches what is still attached (running its hook, whose error is dropped) and SIGKILLs
  // what it launched, then restores the signal mask.
  ~Tracer();
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  // One of launch or attach, once. launch returns the program's pid; argv[0] is found on
  // $PATH when it holds no '/'. Throws Error when the program cannot be found or started,
  // Refusal when it cannot be traced (attach: also what on_attach throws, once the
  // process is detached again).
  pid_t launch(const std::vector<std::string>& argv, const std::vector<std::string>& env);
  void attach(pid_t pid);
  // Attached processes: each is stopped, unpatched (on_detach) and detached. Launched ones are
  // left alone: they end with the run.
  void detach();

  // Runs until the launched program ends (returns its exit status, or 128 + the signal that
  // killed it), or until the attached process ends or a stop signal arrives (detaches and
  // returns 0). Throws Refusal when a traced process execs a program that is not x86-64,
  // and what on_exec throws; the process is then left held, for the destructor.
  int run();

 private:
  struct Resume {
    int request;  // PTRACE_CONT, PTRACE_SYSCALL or PTRACE_LISTEN
    int signal;   // the signal passed on (PTRACE_CONT)
  };
  struct Task {
    explicit Task(pid_t process) : tgid(process) {}
    pid_t tgid;
    ClockCall pending = ClockCall::none;  // a trapped clock call: its exit stop is next
    std::optional<Resume> parked;         // stopped, held by stop_process until released
    bool vanished = false;                // ESRCH: exiting; its exit report will erase it
  };

  // the loop
  void step();
  void dispatch(pid_t tid, int status);
  void on_exit_report(pid_t tid, int status);
  void on_syscall_stop(pid_t tid, Task& t);
  void on_seccomp_stop(pid_t tid, Task& t);
  void on_event_stop(pid_t tid, Task& t, int signal);
  void on_exec_stop(pid_t tid);
  void on_new_task_stop(pid_t tid, Task& t);
  void on_stop_signal(int signal);
  void resume(pid_t tid, Task& t, Resume how);
  void continue_task(pid_t tid, Task& t, Resume how);
  Task& task(pid_t tid);

  // a whole process held still
  void stop_process(pid_t tgid);
  void release(pid_t tgid);
  void detach_process(pid_t tgid, bool run_hook);
  std::vector<pid_t> threads_of(pid_t tgid) const;
  void seize_threads(pid_t pid);
  unsigned long seize_options() const;
  std::optional<std::string> launch_failure();  // what the launched child reported, if anything

  const ClockPageMap* page_;
  PlantedDefect planted_;
  ClockFilter filter_;
  sigset_t wait_set_{};  // SIGCHLD and the stop signals
  sigset_t stop_set_{};  // the stop signals
  sigset_t old_mask_{};  // this thread's mask before; a launched child gets it back
  std::unordered_map<pid_t, Task> tasks_;
  pid_t root_ = 0;
  bool launched_ = false;
  std::optional<pid_t> holding_;    // the process whose stops are parked, not resumed
  std::optional<int> root_status_;  // set when the root process has ended
  int stop_signal_ = 0;             // a stop signal not yet acted on
  int launch_report_fd_ = -1;       // the launched child's exec failure, if any
  std::string program_;             // the launched program, for messages
};

}  // namespace idbench::inject
