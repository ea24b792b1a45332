// spool.cpp — an unnamed temp file that holds one thread's IDs until they join a shared output.
#include "generate/spool.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "generators/errors.hpp"
#include "plumbing/temp_dir.hpp"

namespace idbench::generate {

Spool::Spool() : root_(plumbing::temp_root()) {
  fd_ = ::open(root_.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd_ < 0) fail();
}

Spool::~Spool() {
  if (fd_ >= 0) ::close(fd_);
}

void Spool::write(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail();
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

void Spool::drain_into(plumbing::OutputFile& out) const {
  std::string buf(std::size_t{1} << 20, '\0');
  for (off_t at = 0;;) {
    const ssize_t n = ::pread(fd_, buf.data(), buf.size(), at);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail();
    if (n == 0) return;
    out.write(std::string_view(buf.data(), static_cast<std::size_t>(n)));
    at += n;
  }
}

void Spool::fail() const {
  throw Error(fmt::format("cannot spool IDs under {}: {}", root_, std::strerror(errno)));
}

}  // namespace idbench::generate
