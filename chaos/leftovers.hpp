// leftovers.hpp — what a chaos run leaves behind when it is killed with -9, and the sweep that
// removes it. A run that ends normally, fails or is interrupted (SIGINT, SIGTERM, SIGHUP)
// cleans up after itself; only SIGKILL (a ctest timeout, the OOM killer) can leave:
//   /dev/shm/faketime_shm_idbench_<pid>, /dev/shm/sem.faketime_sem_idbench_<pid>
//       the driver's libfaketime pair (faketime.hpp), and the faketime_{sem,shm}_<pid> pairs
//       any libfaketime process killed with -9 leaves (ours never create one);
//   $TMPDIR/idbench-chaos-<pid>-XXXXXX, $TMPDIR/idbench-chaos-mark-<pid>-XXXXXX
//       a run's records and a matrix cell's high-water marks: plumbing::TempDir directories,
//       swept with every other idbench temp dir by plumbing::sweep_stale_temp_dirs().
// The nodes themselves die with their driver (PR_SET_PDEATHSIG, plumbing/child_process.hpp).
//
// Each entry names the pid that created it; the sweep removes an entry only when that pid is
// no longer running, so it never touches a live run. Every run sweeps before it starts, and
// the ctest fixture cleanup (`idbench-chaos-node --sweep`) sweeps after the chaos tests.
//
// Thread safety: thread-safe (the file system is the only state).
#pragma once

#include <string>
#include <string_view>

namespace idbench::chaos {

// A fresh temp directory $TMPDIR/<prefix>-<our pid>-XXXXXX that the caller removes (a
// released plumbing::TempDir); prefix starts with "idbench-". Throws idbench::Error.
std::string make_owned_temp_dir(std::string_view prefix);

// Removes /dev/shm entries of dead libfaketime processes; returns how many.
int sweep_stale_faketime_shm();
// Removes the idbench temp directories of dead processes (plumbing::sweep_stale_temp_dirs);
// returns how many.
int sweep_stale_run_dirs();

}  // namespace idbench::chaos
