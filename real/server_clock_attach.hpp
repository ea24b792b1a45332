// server_clock_attach.hpp — a running server put on a ServerClockNemesis's ptrace clock without
// a restart: `idbench-inject --page PAGE --pid PID` attached to it for as long as this object
// says, then detached (SIGTERM), which restores the server's vDSO and leaves it untraced.
//
//   ServerClockNemesis clock(chaos::ClockInjector::ptrace);
//   ServerClockAttachment a(clock, server.pid(), "mariadbd");  // returns once it reads the page
//   clock.invoke({.op = "step", ...}, t);                      // the running server steps
//   a.detach();                       // injector exited 0, every thread's TracerPid is 0 again
//
// Only what reads the clock through the vDSO (libc's clock_gettime, gettimeofday, time) is
// faked in an attached process: its raw clock system calls are not (inject/tracer.hpp).
//
// Nothing outlives the run: the injector is a plumbing::ChildProcess (own process group,
// parent-death SIGKILL), killed by the InterruptGuard on SIGINT; a killed injector's server is
// detached by the kernel and reads true time again within one lease of the page (the dead
// man's switch), and the server itself dies with idbench (its own parent-death signal).
//
// Thread safety: thread-compatible; construct, detach and destroy on the thread that outlives
// the injector (the parent-death signal follows the forking thread).
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

#include "plumbing/child_process.hpp"
#include "real/server_clock_nemesis.hpp"

namespace idbench::real {

class ServerClockAttachment {
 public:
  // Starts the injector on `pid` (called `who` in messages) and waits, at most 30 s, for its
  // "attached PID". Throws idbench::Refused (exit 3) with the injector's own line when it
  // refused the process (exit 3: no permission, another tracer, a stopped process), Error when
  // it failed otherwise or did not attach in time. `clock` must be a ptrace clock.
  ServerClockAttachment(const ServerClockNemesis& clock, pid_t pid, std::string who);
  // Detaches if still attached (errors dropped: the run is already failing).
  ~ServerClockAttachment();
  ServerClockAttachment(const ServerClockAttachment&) = delete;
  ServerClockAttachment& operator=(const ServerClockAttachment&) = delete;

  pid_t pid() const { return pid_; }
  // SIGTERM to the injector and waits (at most 30 s) for it: it must exit 0 and leave every
  // thread of the server untraced. Throws Error otherwise. Idempotent.
  void detach();

 private:
  std::string failure(std::string_view what) const;

  pid_t pid_;
  std::string who_;
  std::string err_path_;
  std::unique_ptr<plumbing::ChildProcess> injector_;
};

// The highest TracerPid of the threads of `pid` (/proc/PID/task/*/status): 0 when none is
// traced; -1 when the process is gone.
long traced_by(pid_t pid);

}  // namespace idbench::real
