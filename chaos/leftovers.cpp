// leftovers.cpp — sweeps what a chaos run killed with -9 left: faketime shm, temp dirs.
#include "chaos/leftovers.hpp"

#include <dirent.h>
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>

#include "plumbing/temp_dir.hpp"

namespace idbench::chaos {
namespace {

bool dead(long pid) { return pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH; }

// The leading decimal pid of `text` when it is followed by `end` (or ends there); else 0.
long leading_pid(std::string_view text, char end) {
  long pid = 0;
  std::size_t i = 0;
  for (; i < text.size() && i < 10 && text[i] >= '0' && text[i] <= '9'; ++i) {
    pid = pid * 10 + (text[i] - '0');
  }
  if (i == 0) return 0;
  if (i < text.size() && text[i] != end) return 0;
  return pid;
}

// The pid in "[sem.]faketime_{sem,shm}_[idbench_]<pid>", or 0 for any other name.
// (Parsed by hand: std::regex trips GCC 12's -Wmaybe-uninitialized in sanitizer builds.)
long faketime_entry_pid(std::string_view name) {
  if (name.starts_with("sem.")) name.remove_prefix(4);
  if (!name.starts_with("faketime_sem_") && !name.starts_with("faketime_shm_")) return 0;
  name.remove_prefix(13);
  if (name.starts_with("idbench_")) name.remove_prefix(8);
  return leading_pid(name, '\0');  // no NUL inside a name: any trailing character fails
}

}  // namespace

std::string make_owned_temp_dir(std::string_view prefix) {
  return plumbing::TempDir(prefix).release();
}

int sweep_stale_faketime_shm() {
  DIR* dir = ::opendir("/dev/shm");
  if (dir == nullptr) return 0;
  int removed = 0;
  while (const dirent* d = ::readdir(dir)) {
    if (!dead(faketime_entry_pid(d->d_name))) continue;
    if (::unlink(fmt::format("/dev/shm/{}", d->d_name).c_str()) == 0) ++removed;
  }
  ::closedir(dir);
  return removed;
}

int sweep_stale_run_dirs() { return plumbing::sweep_stale_temp_dirs(); }

}  // namespace idbench::chaos
