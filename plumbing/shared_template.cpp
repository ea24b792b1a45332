// shared_template.cpp — a data directory template shared by the processes of a test run:
// stamped, made once under an flock, copied.
#include "plumbing/shared_template.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "plumbing/atomic_file.hpp"
#include "plumbing/error.hpp"
#include "plumbing/file_tree.hpp"

namespace idbench::plumbing {
namespace {

namespace fs = std::filesystem;

// An exclusive flock of `path` (made if missing), held while the object lives: closing the
// descriptor releases it, also when the process dies.
class ExclusiveLock {
 public:
  explicit ExclusiveLock(const std::string& path)
      : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600)) {
    if (fd_ < 0) throw Error(fmt::format("cannot open {}: {}", path, std::strerror(errno)));
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno != EINTR) {
        const int err = errno;
        ::close(fd_);
        throw Error(fmt::format("cannot lock {}: {}", path, std::strerror(err)));
      }
    }
  }
  ~ExclusiveLock() { ::close(fd_); }
  ExclusiveLock(const ExclusiveLock&) = delete;
  ExclusiveLock& operator=(const ExclusiveLock&) = delete;

 private:
  int fd_;
};

bool stamped(const SharedTemplate& t) {
  std::error_code ec;
  return fs::exists(t.dir + "/stamp", ec) && read_text_file(t.dir + "/stamp") == t.stamp;
}

// Keeps a copy of `data` as the template, replacing whatever was there. Under the lock no one
// else is making one, so every <dir>.tmp-* is what a killed maker left.
void keep_as_template(const SharedTemplate& t, const std::string& data) {
  const fs::path dir(t.dir);
  const std::string leftover_prefix = dir.filename().string() + ".tmp-";
  std::error_code ec;
  fs::create_directories(dir.parent_path(), ec);
  for (const auto& e : fs::directory_iterator(dir.parent_path(), ec)) {
    std::error_code rm_ec;
    if (e.path().filename().string().starts_with(leftover_prefix)) fs::remove_all(e.path(), rm_ec);
  }
  const std::string making = fmt::format("{}{}", leftover_prefix, ::getpid());
  const fs::path at = dir.parent_path() / making;
  fs::create_directories(at);
  copy_tree(data, (at / "data").string());
  write_file_atomically((at / "stamp").string(), t.stamp);
  fs::remove_all(dir, ec);
  fs::rename(at, dir);
}

}  // namespace

std::string program_stamp(const std::string& program) {
  struct stat st {};
  if (::stat(program.c_str(), &st) != 0) return program + "\n";
  return fmt::format("{} {} {}\n", program, st.st_size, st.st_mtim.tv_sec);
}

void fill_from_shared_template(const SharedTemplate& t, const std::string& data,
                               const std::function<void()>& make,
                               const std::optional<RunAs>& owner) {
  const ExclusiveLock lock(t.dir + ".lock");
  if (!stamped(t)) {
    make();
    keep_as_template(t, data);
    return;
  }
  copy_tree(t.dir + "/data", data);
  if (owner) give_tree(data, owner->uid, owner->gid);
}

}  // namespace idbench::plumbing
