// postgres_shm.hpp — the SysV shared memory segment a killed PostgreSQL server leaves behind,
// found by what it says about itself and removed once nothing is attached to it.
//
// A postmaster keeps one small System V segment (56 bytes on Linux x86-64) as an interlock
// against a second postmaster on its data directory. Its key is derived from that directory's
// inode, and its header records the directory's device and inode. A server that shuts down
// removes it; one that is killed (SIGKILL, or the kill of every child on SIGINT) never does,
// and the segments pile up (`ipcs -m`: the server's owner, nattch 0) until a reboot.
//
//   remove_postgres_segments({dir + "/data"});   // before the data directory itself goes
//
// A segment is removed only when (1) its key is one PostgreSQL derives from one of `dirs`'
// inodes, (2) its header carries PostgreSQL's magic number and that directory's device and
// inode, and (3) no process is attached to it (a dying server's processes get up to 2 s to
// detach). While a directory exists no other directory has its inode, so (2) names the server
// of that directory alone. TempDir calls this for its tree before removing it, and so does
// the sweep of a dead run's directory (temp_dir.hpp): that is all the sweeping there is.
//
// Thread safety: stateless; the kernel's segment table is the state.
#pragma once

#include <string>
#include <vector>

namespace idbench::plumbing {

// Removes the segments of the PostgreSQL data directories among `dirs` (paths that exist; a
// missing one is skipped). Returns how many were removed.
int remove_postgres_segments(const std::vector<std::string>& dirs);

}  // namespace idbench::plumbing
