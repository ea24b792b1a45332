// atomic_file.cpp — output files that are never half-written and never replace a non-file.
#include "plumbing/atomic_file.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <optional>

namespace idbench::plumbing {
namespace {

// Bytes gathered before one write(2): large enough that writing 8 GB is not syscall-bound.
constexpr std::size_t kBufferBytes = std::size_t{1} << 20;
// Linux's own limit on symlinks followed in one path lookup (MAXSYMLINKS).
constexpr int kMaxSymlinks = 40;

std::string display(const std::string& path) {
  return path.empty() || path == "-" ? std::string("standard output") : path;
}

std::string dir_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? std::string("/") : path.substr(0, slash);
}

std::string base_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Follows a chain of symlinks to the path that is finally written, even when the last link
// dangles (then its target is created). Returns nullopt after too many links.
std::optional<std::string> resolve_links(std::string path) {
  for (int hops = 0; hops < kMaxSymlinks; ++hops) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return path;
    std::string target(4096, '\0');
    const ssize_t n = ::readlink(path.c_str(), target.data(), target.size());
    if (n < 0) return path;
    target.resize(static_cast<std::size_t>(n));
    path = target.starts_with('/') ? target : dir_of(path) + "/" + target;
  }
  return std::nullopt;
}

// The descriptor a path names directly (/dev/stdout, /dev/fd/N, /proc/self/fd/N), which is
// duplicated rather than reopened: reopening would lose an append offset or fail on a pipe.
std::optional<int> named_descriptor(const std::string& path) {
  if (path.empty() || path == "-" || path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  for (std::string_view prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    if (!path.starts_with(prefix)) continue;
    const std::string_view digits = std::string_view(path).substr(prefix.size());
    int fd = -1;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), fd);
    if (ec == std::errc{} && end == digits.data() + digits.size()) return fd;
  }
  return std::nullopt;
}

// The name of a writer's temp file beside `final_path`, but for its number.
std::string temp_prefix(const std::string& final_path) {
  return fmt::format("{}/.{}.tmp-{}-", dir_of(final_path), base_of(final_path), ::getpid());
}

int next_temp_number() {
  // Relaxed: only uniqueness matters, no other memory is published through the counter.
  static std::atomic<int> counter{0};
  return counter.fetch_add(1, std::memory_order_relaxed);
}

bool write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

// `.<name>.tmp-<pid>-<n>` → pid; nullopt for any other name.
std::optional<pid_t> temp_file_owner(std::string_view name) {
  if (!name.starts_with('.')) return std::nullopt;
  const auto tag = name.rfind(".tmp-");
  if (tag == std::string_view::npos || tag == 0) return std::nullopt;
  const std::string_view rest = name.substr(tag + 5);
  const auto dash = rest.find('-');
  if (dash == std::string_view::npos || dash == 0 || dash + 1 == rest.size()) return std::nullopt;
  pid_t pid = 0;
  auto [end, ec] = std::from_chars(rest.data(), rest.data() + dash, pid);
  if (ec != std::errc{} || end != rest.data() + dash || pid <= 0) return std::nullopt;
  int n = 0;
  auto [end2, ec2] = std::from_chars(rest.data() + dash + 1, rest.data() + rest.size(), n);
  if (ec2 != std::errc{} || end2 != rest.data() + rest.size()) return std::nullopt;
  return pid;
}

bool process_runs(pid_t pid) { return ::kill(pid, 0) == 0 || errno == EPERM; }

}  // namespace

OutputFile::OutputFile(std::string path) : path_(std::move(path)) {
  buffer_.reserve(kBufferBytes);
  if (const auto fd = named_descriptor(path_)) {
    through_ = true;
    fd_ = ::fcntl(*fd, F_DUPFD_CLOEXEC, 3);
    if (fd_ < 0) fail("cannot write", errno);
    return;
  }
  const auto resolved = resolve_links(path_);
  if (!resolved) fail("cannot write", ELOOP);
  final_path_ = *resolved;
  struct stat st {};
  const bool exists = ::stat(final_path_.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) fail("cannot write", EISDIR);
  if (exists && !S_ISREG(st.st_mode)) {
    through_ = true;  // a device, FIFO or socket: written through, never replaced
    fd_ = ::open(final_path_.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd_ < 0) fail("cannot write", errno);
    return;
  }
  // A file without a name (O_TMPFILE) cannot be left behind: whatever ends the process, a
  // signal at its default action or SIGKILL included, the kernel frees it. It gets its name at
  // commit, linked through /proc/self/fd. Where either is missing, a named temp file instead.
  if (::access("/proc/self/fd", X_OK) == 0) {
    fd_ = ::open(dir_of(final_path_).c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
    unnamed_ = fd_ >= 0;
  }
  if (!unnamed_) {
    do {
      temp_path_ = temp_prefix(final_path_) + std::to_string(next_temp_number());
      fd_ = ::open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    } while (fd_ < 0 && errno == EEXIST);
  }
  if (fd_ < 0) {
    const int err = errno;
    temp_path_.clear();
    // The file is there (/proc/version): only its directory refuses the file that would
    // replace it, and "No such file or directory" alone would say the opposite.
    if (exists) {
      throw OutputError(
          fmt::format("{} exists and cannot be replaced: no new file can be made "
                      "in {} ({})",
                      path_, dir_of(final_path_), std::strerror(err)));
    }
    fail("cannot write", err);
  }
  // Replacing a file keeps its permissions; a new one gets 0666 less the umask.
  if (exists) (void)::fchmod(fd_, st.st_mode & 07777);
}

OutputFile::~OutputFile() { abandon(); }

OutputFile::OutputFile(OutputFile&& other) noexcept
    : path_(std::move(other.path_)),
      final_path_(std::move(other.final_path_)),
      temp_path_(std::move(other.temp_path_)),
      buffer_(std::move(other.buffer_)),
      written_(other.written_),
      fd_(other.fd_),
      through_(other.through_),
      unnamed_(other.unnamed_),
      done_(other.done_) {
  other.temp_path_.clear();
  other.fd_ = -1;
  other.done_ = true;
}

void OutputFile::fail(const char* what, int err) {
  abandon();
  throw OutputError(fmt::format("{} {}: {}", what, display(path_), std::strerror(err)));
}

void OutputFile::write(std::string_view bytes) {
  if (done_) throw OutputError(fmt::format("cannot write {}: already closed", display(path_)));
  written_ += bytes.size();
  if (buffer_.size() + bytes.size() > kBufferBytes) flush_buffer();
  if (bytes.size() >= kBufferBytes) {
    if (!write_all(fd_, bytes.data(), bytes.size())) fail("cannot write", errno);
    return;
  }
  buffer_.append(bytes);
}

void OutputFile::flush_buffer() {
  if (!write_all(fd_, buffer_.data(), buffer_.size())) fail("cannot write", errno);
  buffer_.clear();
}

void OutputFile::finish() {
  if (done_) throw OutputError(fmt::format("cannot write {}: already closed", display(path_)));
  flush_buffer();
  // fsync makes a regular file durable before it is renamed into place; a pipe or tty cannot
  // be synced (EINVAL), which is not a failure of the write.
  if (::fsync(fd_) != 0 && !(through_ && (errno == EINVAL || errno == EROFS))) {
    fail("cannot write", errno);
  }
  if (!unnamed_) close_fd();  // an unnamed file lives only while open: closed once named
}

void OutputFile::close_fd() {
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0 && errno != EINTR) fail("cannot write", errno);
}

// Links the finished unnamed file to a temp name of its own (the rename's source): the only
// moment a killed writer could leave a file behind, swept by the next run.
void OutputFile::name_unnamed() {
  const std::string self = fmt::format("/proc/self/fd/{}", fd_);
  int rc = 0;
  do {
    temp_path_ = temp_prefix(final_path_) + std::to_string(next_temp_number());
    rc = ::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, temp_path_.c_str(), AT_SYMLINK_FOLLOW);
  } while (rc != 0 && errno == EEXIST);
  if (rc != 0) {
    const int err = errno;
    temp_path_.clear();
    fail("cannot write", err);
  }
  close_fd();
}

void OutputFile::publish() {
  if (!through_) {
    if (unnamed_) name_unnamed();
    if (std::rename(temp_path_.c_str(), final_path_.c_str()) != 0) fail("cannot write", errno);
    temp_path_.clear();
    const int dir = ::open(dir_of(final_path_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
      (void)::fsync(dir);  // the rename is done; a directory that cannot sync loses no data
      ::close(dir);
    }
  }
  done_ = true;
}

void OutputFile::commit() {
  finish();
  publish();
}

void OutputFile::abandon() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temp_path_.empty()) ::unlink(temp_path_.c_str());
  temp_path_.clear();
  done_ = true;
}

void write_file_atomically(const std::string& path, std::string_view content) {
  OutputFile out(path);
  out.write(content);
  out.commit();
}

void commit_all(std::vector<OutputFile>& files) {
  try {
    for (OutputFile& f : files) f.finish();
  } catch (...) {
    for (OutputFile& f : files) f.abandon();
    throw;
  }
  for (OutputFile& f : files) f.publish();
}

int sweep_stale_temp_files(const std::string& dir) {
  DIR* d = ::opendir(dir.empty() ? "." : dir.c_str());
  if (d == nullptr) return 0;
  int removed = 0;
  while (const dirent* e = ::readdir(d)) {
    const auto pid = temp_file_owner(e->d_name);
    if (!pid || process_runs(*pid)) continue;
    if (::unlinkat(::dirfd(d), e->d_name, 0) == 0) ++removed;
  }
  ::closedir(d);
  return removed;
}

}  // namespace idbench::plumbing
