// leftovers.hpp — everything a dead idbench process can leave behind, and the one sweep that
// removes it, which every idbench command runs before it starts (cli/main.cpp).
//
// A run that ends normally, fails or is interrupted (SIGINT, SIGTERM, SIGHUP) cleans up after
// itself; only SIGKILL (a ctest timeout, the OOM killer) can leave:
//   $TMPDIR/idbench-<what>-<pid>-XXXXXX (or /tmp/…: a server's directory its user, nobody,
//   cannot reach under $TMPDIR)
//       every plumbing::TempDir (temp_dir.hpp): a chaos run's records and high-water marks, a
//       MariaDB or PostgreSQL server's directory (db_server.hpp), an etcd cluster's member
//       directories (coord/etcd_cluster.hpp), a check's partitions, a real-chaos run's faked
//       clock; with it goes the SysV segment of a PostgreSQL data directory in it
//       (postgres_shm.hpp), which would otherwise stay until a reboot;
//   /dev/shm/faketime_shm_idbench_<pid>, /dev/shm/sem.faketime_sem_idbench_<pid>
//       the libfaketime pair a chaos driver makes (chaos/faketime.hpp), and the
//       faketime_{sem,shm}_<pid> pairs any libfaketime process killed with -9 leaves (a
//       server or a program run under libfaketime).
// Not here: the named temp file of an atomic write (atomic_file.hpp) lives beside its target,
// a directory only its writer knows; the writer sweeps it (sweep_stale_temp_files).
// Processes are not leftovers: children die with their parent (PR_SET_PDEATHSIG,
// child_process.hpp).
//
//   const plumbing::Swept s = plumbing::sweep_leftovers();   // s.temp_dirs, s.faketime_shm
//
// Each entry names the pid that made it; an entry goes only when no process has that pid, so a
// sweep never touches a live run's (a pid reused since keeps its entry until the next sweep
// after it ends). The ctest fixture cleanup `idbench-chaos-node --sweep` runs the same sweep.
//
// Thread safety: thread-safe; the file system and the kernel's segment table are the state.
#pragma once

namespace idbench::plumbing {

// What one sweep removed.
struct Swept {
  int temp_dirs = 0;     // idbench temp dirs of dead processes (with their PostgreSQL segments)
  int faketime_shm = 0;  // /dev/shm entries of dead libfaketime processes
  int total() const { return temp_dirs + faketime_shm; }
};

// Removes every kind of leftover above whose owner is dead. Never throws: what it cannot
// remove stays for the next sweep.
Swept sweep_leftovers() noexcept;

// Removes the /dev/shm entries of dead libfaketime processes (the pairs above); returns how
// many. Part of sweep_leftovers(); on its own for a test that checks a run left none.
int sweep_stale_faketime_shm();

// True only when no process has `pid` (> 0): EPERM (another user's process) counts as alive,
// so nothing a sweep removes can belong to a running process.
bool pid_gone(long pid);

}  // namespace idbench::plumbing
