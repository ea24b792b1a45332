// temp_dir.hpp — private temporary directories that a killed run cannot leave behind for good.
//
//   TempDir dir("idbench-mariadb");      // $TMPDIR/idbench-mariadb-<pid>-XXXXXX, mode 0700
//   ... dir.path() ...                   // removed with everything in it by the destructor
//
// Every directory names the pid that made it. `sweep_stale_temp_dirs()` removes the
// directories (under $TMPDIR and under /tmp) whose owner pid is no longer running; it is part of
// the one sweep of leftovers every idbench command runs first (leftovers.hpp), and every TempDir
// runs it too, so a program that makes one removes what a SIGKILL left. It never touches a
// live run's directory.
// Removing a directory, by its TempDir or by the sweep, first removes the SysV segment of a
// PostgreSQL data directory in it (the directory or one level down) that a killed server
// left (postgres_shm.hpp).
//
// A directory for a server that runs as another user (PostgreSQL runs as `nobody` when idbench
// is root) must be reachable by that user: when $TMPDIR or one of its ancestors is closed to
// it (a private 0700 directory), the directory is made in /tmp instead, which the sweep covers
// as well.
//
//   TempDir db("idbench-pg", nobody);        // $TMPDIR/…, or /tmp/… when nobody cannot reach it
//
// Thread safety: thread-compatible; sweeping is safe at any time (the file system is the state).
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>

#include "plumbing/child_process.hpp"

namespace idbench::plumbing {

// The directory temp dirs are made in: $TMPDIR if set and non-empty, else /tmp.
std::string temp_root();
// The system's temp directory: where a directory goes that its user cannot reach under
// temp_root(). The sweep covers it too.
inline constexpr const char* kSystemTempRoot = "/tmp";

// True when `user` may enter `dir` and every directory above it (the search bit of the owner,
// group or others class that applies to it; ACLs are not read).
bool reachable_by(const std::string& dir, const RunAs& user);

class TempDir {
 public:
  // Creates `<temp_root>/<prefix>-<pid>-XXXXXX`; prefix must start with "idbench-". Sweeps
  // first (sweep_stale_temp_dirs), so that every command that makes a temp dir removes what
  // a SIGKILLed run left. Throws idbench::Error naming the path and errno text on failure.
  explicit TempDir(std::string_view prefix);
  // The same, made where `user` can reach it: temp_root() when reachable_by() it, else
  // kSystemTempRoot. Not given to `user` (give_to does that).
  TempDir(std::string_view prefix, const std::optional<RunAs>& user);
  ~TempDir();  // removes the tree; never throws
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  TempDir(TempDir&& other) noexcept;
  TempDir& operator=(TempDir&&) = delete;

  const std::string& path() const { return path_; }
  // Gives the directory (recursively) to another user, e.g. a server that runs as `nobody`.
  void give_to(uid_t uid, gid_t gid) const;
  // Leaves the directory in place (the user asked to --keep it).
  std::string release();

 private:
  std::string path_;
};

// Removes `idbench-*-<pid>-*` directories under temp_root() and kSystemTempRoot whose pid is
// not running. Returns how many were removed.
int sweep_stale_temp_dirs();
// The same under `root` alone.
int sweep_stale_temp_dirs(const std::string& root);

}  // namespace idbench::plumbing
