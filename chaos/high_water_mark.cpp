#include "chaos/high_water_mark.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <limits>

namespace idbench::chaos {
namespace {

[[noreturn]] void fail(const std::string& what, const std::string& path) {
  throw HighWaterMarkError(
      fmt::format("high-water mark {}: {}: {}", path, what, std::strerror(errno)));
}

std::string directory_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

}  // namespace

std::optional<std::int64_t> HighWaterMark::load() const {
  const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return std::nullopt;
    fail("cannot open", path_);
  }
  char buf[64];
  const ssize_t n = ::read(fd, buf, sizeof buf);
  const int read_errno = errno;
  ::close(fd);
  if (n < 0) {
    errno = read_errno;
    fail("cannot read", path_);
  }
  std::string_view text(buf, static_cast<std::size_t>(n));
  if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  std::int64_t ms = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), ms);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) {
    throw HighWaterMarkError(fmt::format(
        "high-water mark {}: corrupt (expected one Unix millisecond, found '{}'); refusing to "
        "start rather than guess",
        path_, text));
  }
  return ms;
}

void HighWaterMark::store(std::int64_t unix_ms) const {
  const std::string temp = path_ + ".tmp";
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("cannot create", temp);
  const std::string text = fmt::format("{}\n", unix_ms);
  const ssize_t n = ::write(fd, text.data(), text.size());
  if (n != static_cast<ssize_t>(text.size()) || ::fsync(fd) != 0) {
    const int e = errno;
    ::close(fd);
    errno = e;
    fail("cannot write", temp);
  }
  ::close(fd);
  if (::rename(temp.c_str(), path_.c_str()) != 0) fail("cannot rename into place", temp);
  const std::string dir = directory_of(path_);
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) fail("cannot open directory", dir);
  const int rc = ::fsync(dir_fd);
  ::close(dir_fd);
  if (rc != 0) fail("cannot fsync directory", dir);
}

std::int64_t lookahead_ms(const Policy& policy) {
  return policy.kind == PolicyKind::borrow ? policy.bound_ms : 0;
}

ReservingClock::ReservingClock(std::shared_ptr<Clock> inner, HighWaterMark mark,
                               std::int64_t lookahead, std::int64_t reserve_ms,
                               std::optional<std::int64_t> initial_mark)
    : inner_(std::move(inner)),
      mark_(std::move(mark)),
      lookahead_ms_(lookahead),
      reserve_ms_(reserve_ms),
      reserved_(initial_mark.value_or(std::numeric_limits<std::int64_t>::min())) {}

std::int64_t ReservingClock::wall_ns() const {
  const std::int64_t reading = inner_->wall_ns();
  const std::int64_t needed = floor_div(reading, 1'000'000) + lookahead_ms_;
  // Acquire pairs with the release below: the mark seen is one already made durable.
  if (needed <= reserved_.load(std::memory_order_acquire)) return reading;

  std::lock_guard<std::mutex> lock(store_mu_);
  // Relaxed under the lock: only this critical section writes reserved_.
  if (needed <= reserved_.load(std::memory_order_relaxed)) return reading;
  const std::int64_t next = needed + reserve_ms_;
  mark_.store(next);  // durable before any ID can be issued from this reading
  stores_.fetch_add(1, std::memory_order_relaxed);
  reserved_.store(next, std::memory_order_release);
  return reading;
}

}  // namespace idbench::chaos
