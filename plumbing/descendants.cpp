// descendants.cpp — the supervisor of a contained child (see descendants.hpp): it outlives the
// program only to end every process the program left. Async-signal-safe calls only: it is a
// fork of a multithreaded process that never execs.
#include "plumbing/descendants.hpp"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstring>
#include <initializer_list>

namespace idbench::plumbing {
namespace {

// When children are left that no SIGKILL ends (none should be), how many 1 ms rounds to try.
constexpr int kMaxIdleRounds = 100;

extern "C" void on_child(int) {}  // SIGCHLD handled, so it is never discarded as ignored

void handle(int sig, void (*handler)(int)) {
  struct sigaction sa {};
  sa.sa_handler = handler;
  sigemptyset(&sa.sa_mask);
  ::sigaction(sig, &sa, nullptr);
}

// The parent pid in /proc/PID/stat ("PID (COMM) STATE PPID ..."), or -1.
pid_t parent_of(const char* pid) {
  char path[64] = "/proc/";
  const std::size_t len = std::strlen(pid);
  if (len > 20) return -1;
  std::memcpy(path + 6, pid, len);
  std::memcpy(path + 6 + len, "/stat", 6);
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[512];
  const ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return -1;
  buf[n] = '\0';
  const char* p = std::strrchr(buf, ')');  // COMM may hold anything but not end the line
  if (p == nullptr || p[1] != ' ' || p[2] == '\0' || p[3] != ' ') return -1;
  pid_t ppid = 0;
  for (p += 4; *p >= '0' && *p <= '9'; ++p) ppid = ppid * 10 + (*p - '0');
  return ppid;
}

// SIGKILLs every process whose parent is `self`; returns how many it signalled.
int kill_children(pid_t self) {
  const int dir = ::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return 0;
  alignas(dirent64) char buf[8192];
  int killed = 0;
  for (ssize_t n; (n = ::getdents64(dir, buf, sizeof buf)) > 0;) {
    for (ssize_t off = 0; off < n;) {
      const auto* d = reinterpret_cast<const dirent64*>(buf + off);
      off += d->d_reclen;
      if (d->d_name[0] < '1' || d->d_name[0] > '9' || parent_of(d->d_name) != self) continue;
      pid_t pid = 0;
      for (const char* c = d->d_name; *c >= '0' && *c <= '9'; ++c) pid = pid * 10 + (*c - '0');
      if (::kill(pid, SIGKILL) == 0) ++killed;
    }
  }
  ::close(dir);
  return killed;
}

// Kills the program's group (unless it is reaped) and then every process left below us, one
// generation a round, reaping each; `status` gets the program's wait status when we reap it.
void end_all(pid_t program, bool program_reaped, int& status) {
  if (!program_reaped) {
    ::kill(-program, SIGKILL);
    ::kill(program, SIGKILL);
  }
  const pid_t self = ::getpid();
  for (int idle = 0; idle < kMaxIdleRounds;) {
    const int killed = kill_children(self);
    int reaped = 0;
    for (;;) {
      int st = 0;
      const pid_t r = ::waitpid(-1, &st, reaped < killed ? 0 : WNOHANG);
      if (r > 0) {
        ++reaped;
        if (r == program) status = st;
        continue;
      }
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) return;  // ECHILD: nothing is left
      break;              // some are left: the next round finds them
    }
    idle = killed + reaped == 0 ? idle + 1 : 0;
    if (idle > 0) {
      const timespec ms{0, 1'000'000};
      ::nanosleep(&ms, nullptr);
    }
  }
}

// Closes every descriptor but `keep` (which is above 2).
void close_all_but(int keep) {
  const auto k = static_cast<unsigned>(keep);
  if (::close_range(0, k - 1, 0) == 0 && ::close_range(k + 1, ~0U, 0) == 0) return;
  for (int fd = 0; fd < 65536; ++fd) {  // a kernel before 5.9: no close_range
    if (fd != keep) ::close(fd);
  }
}

void write_int(int fd, int value) {
  while (::write(fd, &value, sizeof value) < 0 && errno == EINTR) {
  }
}

}  // namespace

void supervise(pid_t parent, int report_fd, StartProgram start, const void* arg) {
  // The signals it acts on stay blocked and are taken one at a time by sigwaitinfo: none is
  // lost between a check and the wait, and no handler runs. (With handlers and sigsuspend, a
  // ThreadSanitizer build never ran them in this forked, not exec'd, copy of a threaded
  // process: the end signal was lost and its parent waited for ever.)
  sigset_t handled;
  sigemptyset(&handled);
  for (int sig : {kEndSignal, SIGTERM, SIGINT, SIGHUP, SIGCHLD}) sigaddset(&handled, sig);
  ::sigprocmask(SIG_BLOCK, &handled, nullptr);
  handle(SIGCHLD, on_child);
  bool end_requested = false;
  handle(SIGPIPE, SIG_IGN);  // a report to a parent that is gone must not kill us
  ::setpgid(0, 0);           // out of idbench's group: a Ctrl-C there is not for us
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  ::prctl(PR_SET_PDEATHSIG, kEndSignal);
  if (::getppid() != parent) end_requested = true;  // died before the death signal was set

  const pid_t program = ::_Fork();  // fork() would take locks another thread of idbench held
  if (program == 0) {
    start(arg, ::getppid());
    ::_exit(127);
  }
  write_int(report_fd, program > 0 ? program : -errno);
  if (program < 0) ::_exit(127);
  ::setpgid(program, program);  // as it does itself: its group exists before we signal it
  // Only the report stays open here: a copy of the program's pipes (or of any other child's)
  // would keep them from ever reaching EOF.
  close_all_but(report_fd);

  bool reaped = false;
  int status = 0;
  for (;;) {
    for (int st = 0;;) {
      const pid_t r = ::waitpid(-1, &st, WNOHANG);
      if (r <= 0) break;
      if (r == program) {
        reaped = true;
        status = st;
      }
    }
    if (reaped || end_requested) break;
    const int sig = ::sigwaitinfo(&handled, nullptr);
    if (sig == kEndSignal) {
      end_requested = true;
    } else if (sig == SIGTERM || sig == SIGINT || sig == SIGHUP) {
      ::kill(program, sig);  // a stop signal is the program's to handle
    }  // SIGCHLD (or EINTR): reap above
  }
  end_all(program, reaped, status);
  write_int(report_fd, status);
  ::_exit(0);
}

}  // namespace idbench::plumbing
