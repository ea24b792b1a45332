// history.cpp — reading a node's record file (history.hpp).
#include "fault/history.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace idbench::fault {

std::vector<Record> read_records(const std::string& path) {
  std::uint64_t from_start = 0;
  return read_new_records(path, from_start);
}

std::vector<Record> read_new_records(const std::string& path, std::uint64_t& offset) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  struct stat st {};
  std::vector<Record> out;
  if (::fstat(fd, &st) == 0 && static_cast<std::uint64_t>(st.st_size) > offset) {
    // A kill -9, or a writer still at work, can leave the last record short: read the whole
    // records only.
    out.resize((static_cast<std::uint64_t>(st.st_size) - offset) / sizeof(Record));
    auto* p = reinterpret_cast<char*>(out.data());
    std::size_t want = out.size() * sizeof(Record), got = 0;
    while (got < want) {
      const ssize_t n = ::pread(fd, p + got, want - got, static_cast<off_t>(offset + got));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    out.resize(got / sizeof(Record));
    offset += out.size() * sizeof(Record);
  }
  ::close(fd);
  return out;
}

}  // namespace idbench::fault
