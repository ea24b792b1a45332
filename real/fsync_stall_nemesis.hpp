// fsync_stall_nemesis.hpp — a disk that stops answering a server's background fsync, as a
// fault::Nemesis: the one server thread that fsyncs its log in the background (Redis's
// bio_aof_fsync) is held in a ptrace stop, so every fsync handed to it stays pending, as it
// would behind a busy disk. The server's other threads run on.
//
//   FsyncStallNemesis stall(server, "bio_aof_fsync");
//   st.play(stall, {.op = "stall", .what = "redis-server's AOF fsync stalled"}, ...);
//   ...                                      // load: what does the server do with its writes?
//   st.play(stall, {.op = "freeze", .kind = "harness", .what = "..."}, ...);
//   st.play(crash, {.op = "kill", .what = "kill -9 of redis-server"}, ...);
//
// Verbs:
//   "stall"    the thread held (PTRACE_SEIZE with PTRACE_O_EXITKILL, then PTRACE_INTERRUPT),
//              once it has stopped;
//   "release"  the disk answers again: the thread let go (PTRACE_DETACH), the server serving;
//   "freeze"   the stall handed to a crash: the whole server stopped (SIGSTOP) and the thread
//              let go into that stop, so that a kill -9 right after finds the writes exactly as
//              the stall left them. A kill -9 of a server with a thread still held would leave
//              that thread for its tracer to collect, and its parent waiting for it.
//
// Why a held thread and not a slow device: slowing a device (dm-delay, a cgroup's io.max) needs
// privileges idbench does not have as any user, and what Redis does about a slow fsync depends
// only on its fsync job staying pending. With appendfsync everysec it then postpones writing its
// AOF buffer, up to 2 s at a time, while its replies go out (INFO persistence:
// aof_pending_bio_fsync:1, aof_buffer_length growing); past 2 s it writes anyway and logs
// "Asynchronous AOF fsync is taking too long (disk is busy?)". With appendfsync always it
// writes and fsyncs in its main thread before replying, and the held thread holds nothing.
//
// Thread safety: thread-compatible, and more: the kernel takes ptrace requests only from the
// thread that seized, so play every step on one thread (a scenario's).
#pragma once

#include <sys/types.h>

#include <string>

#include "fault/nemesis.hpp"
#include "real/server.hpp"

namespace idbench::real {

class FsyncStallNemesis : public fault::Nemesis {
 public:
  // `thread`: the name (/proc/PID/task/TID/comm) of the server thread to hold.
  FsyncStallNemesis(Server& server, std::string thread)
      : server_(server), thread_(std::move(thread)) {}
  FsyncStallNemesis(const FsyncStallNemesis&) = delete;
  FsyncStallNemesis& operator=(const FsyncStallNemesis&) = delete;
  // Lets a thread still held go.
  ~FsyncStallNemesis() override;

  std::string_view kind() const override { return "fsync"; }
  void invoke(const fault::FaultStep& step, fault::Timeline& t) override;
  // Lets a thread still held go (the disk answers again).
  void teardown(fault::Timeline& t) override;

  // The held thread's id; 0 when none is held.
  pid_t held() const { return tid_; }

 private:
  void hold();
  void release();
  void freeze();

  Server& server_;
  std::string thread_;
  pid_t tid_ = 0;
};

// The id of the thread of process `pid` named `name`; throws Error when it has none.
pid_t thread_named(pid_t pid, const std::string& name);

}  // namespace idbench::real
