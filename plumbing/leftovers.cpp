// leftovers.cpp — the one sweep of what dead idbench processes left (see leftovers.hpp).
#include "plumbing/leftovers.hpp"

#include <dirent.h>
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <string_view>

#include "plumbing/temp_dir.hpp"

namespace idbench::plumbing {
namespace {

// Where libfaketime keeps its shared memory and semaphores (POSIX shm_open, sem_open).
constexpr const char* kShmDir = "/dev/shm";

// The leading decimal pid of `text` when nothing follows it; else 0.
long whole_pid(std::string_view text) {
  long pid = 0;
  std::size_t i = 0;
  for (; i < text.size() && i < 10 && text[i] >= '0' && text[i] <= '9'; ++i) {
    pid = pid * 10 + (text[i] - '0');
  }
  return i == 0 || i < text.size() ? 0 : pid;
}

// The pid in "[sem.]faketime_{sem,shm}_[idbench_]<pid>", or 0 for any other name.
// (Parsed by hand: std::regex trips GCC 12's -Wmaybe-uninitialized in sanitizer builds.)
long faketime_entry_pid(std::string_view name) {
  if (name.starts_with("sem.")) name.remove_prefix(4);
  if (!name.starts_with("faketime_sem_") && !name.starts_with("faketime_shm_")) return 0;
  name.remove_prefix(13);
  if (name.starts_with("idbench_")) name.remove_prefix(8);
  return whole_pid(name);
}

}  // namespace

bool pid_gone(long pid) {
  return pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

int sweep_stale_faketime_shm() {
  DIR* dir = ::opendir(kShmDir);
  if (dir == nullptr) return 0;
  int removed = 0;
  while (const dirent* d = ::readdir(dir)) {
    if (!pid_gone(faketime_entry_pid(d->d_name))) continue;
    if (::unlink(fmt::format("{}/{}", kShmDir, d->d_name).c_str()) == 0) ++removed;
  }
  ::closedir(dir);
  return removed;
}

Swept sweep_leftovers() noexcept {
  Swept s;
  try {
    s.temp_dirs = sweep_stale_temp_dirs();
  } catch (...) {  // a directory listing that fails midway (std::bad_alloc): the next sweep
  }
  try {
    s.faketime_shm = sweep_stale_faketime_shm();
  } catch (...) {  // fmt::format out of memory: the next sweep
  }
  return s;
}

}  // namespace idbench::plumbing
