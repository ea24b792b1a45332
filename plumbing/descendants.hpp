// descendants.hpp — every descendant of a contained child ends with it: the supervisor between
// idbench and a program it runs (ChildSpec::contain, child_process.hpp).
//
// A program may start processes of its own and leave them: in its process group (killed with
// it), or out of it (setsid, a double fork), where no group kill reaches them; and when idbench
// itself is killed with -9 nothing in idbench can act. So a contained child is two processes:
//
//   idbench ── supervisor ── program ── whatever it starts
//
// The supervisor is forked from idbench and never execs (async-signal-safe calls only). It is a
// subreaper (PR_SET_CHILD_SUBREAPER), so every orphan below it comes to it instead of to PID 1;
// its parent-death signal is kEndSignal, so idbench's death, even by SIGKILL, reaches it. It
// forks the program, then waits until one of:
//   * the program ends (by itself, or killed);
//   * kEndSignal: idbench asks to end it now (ChildProcess::kill_and_reap, the interrupt
//     handler), or idbench (the forking thread) died;
// and then kills, with SIGKILL, the program's group and every process left below it,
// generation by generation (each one's children come to it as that one dies), reaps them all,
// reports how the program ended and exits. SIGTERM, SIGINT and SIGHUP sent to it are passed on
// to the program (ChildProcess::stop).
//
// Why not a cgroup: writing one needs root (or a delegated subtree), and idbench runs as any
// user; a subreaper needs no privilege.
//
// The report pipe carries two native ints: the program's pid (or −errno when it could not be
// forked) as soon as it exists, and its raw wait status once everything has ended.
//
// Thread safety: supervise() is the body of a freshly forked process.
#pragma once

#include <signal.h>
#include <sys/types.h>

namespace idbench::plumbing {

// The supervisor's "end everything now" (and its parent-death signal).
inline constexpr int kEndSignal = SIGUSR1;

// Becomes the program in a freshly forked grandchild; `parent` is the supervisor's pid.
using StartProgram = void (*)(const void* arg, pid_t parent);

// Runs the supervisor (above) in a process just forked by `parent` and never returns.
// `start(arg, supervisor_pid)` must exec the program or _exit.
[[noreturn]] void supervise(pid_t parent, int report_fd, StartProgram start, const void* arg);

}  // namespace idbench::plumbing
