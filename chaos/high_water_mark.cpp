// high_water_mark.cpp — the persisted mark: parsed strictly, stored durably (see the header).
#include "chaos/high_water_mark.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <limits>
#include <thread>
#include <chrono>

#include "plumbing/atomic_file.hpp"

namespace idbench::chaos {
namespace {

[[noreturn]] void fail(const std::string& what, const std::string& path) {
  throw HighWaterMarkError(
      fmt::format("high-water mark {}: {}: {}", path, what, std::strerror(errno)));
}

}  // namespace

std::string mark_path(const std::string& persist_dir, std::uint64_t node_id) {
  return fmt::format("{}/node-{}.hwm", persist_dir, node_id);
}

std::optional<std::string> read_state_file(const std::string& path, std::size_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return std::nullopt;
    fail("cannot open", path);
  }
  // Read one byte past the limit, so a long file is seen whole, not cut to a valid prefix.
  std::string buf(max_bytes + 1, '\0');
  std::size_t got = 0;
  for (;;) {
    const ssize_t n = ::read(fd, buf.data() + got, buf.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int read_errno = errno;
      ::close(fd);
      errno = read_errno;
      fail("cannot read", path);
    }
    got += static_cast<std::size_t>(n);
    if (n == 0 || got == buf.size()) break;
  }
  ::close(fd);
  buf.resize(got);
  return buf;
}

std::optional<std::int64_t> HighWaterMark::load() const {
  const std::optional<std::string> text = read_state_file(path_, kMaxMarkFileBytes);
  if (!text) return std::nullopt;
  return parse_mark(*text, path_);
}

std::int64_t parse_mark(std::string_view text, const std::string& path) {
  std::string_view digits = text;
  if (!digits.empty() && digits.back() == '\n') digits.remove_suffix(1);
  const bool canonical = !digits.empty() && digits.size() <= 19 &&
                         digits.find_first_not_of("0123456789") == std::string_view::npos &&
                         (digits.size() == 1 || digits.front() != '0');
  std::int64_t ms = 0;
  if (canonical) std::from_chars(digits.data(), digits.data() + digits.size(), ms);
  if (!canonical || ms < 1 || ms > kMaxMarkUnixMs) {
    const std::string what =
        text.size() > kMaxMarkFileBytes
            ? fmt::format("more than {} bytes, starting {}", kMaxMarkFileBytes,
                          shown(text.substr(0, 24)))
            : fmt::format("{} ({} bytes)", shown(text), text.size());
    throw HighWaterMarkError(fmt::format(
        "high-water mark {}: corrupt: expected one Unix millisecond (1 … {}) and a newline, "
        "found {}; refusing to start rather than guess",
        path, kMaxMarkUnixMs, what));
  }
  return ms;
}

std::string shown(std::string_view bytes) {
  std::string out = "\"";
  for (const char ch : bytes.substr(0, 40)) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\r') {
      out += "\\r";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '"' || c == '\\') {
      out += fmt::format("\\{}", ch);
    } else if (c < 0x20 || c >= 0x7f) {
      out += fmt::format("\\x{:02x}", c);
    } else {
      out += ch;
    }
  }
  out += bytes.size() > 40 ? "\"…" : "\"";
  return out;
}

void HighWaterMark::store(std::int64_t unix_ms) const {
  // A unique temp file per writer (two processes given one node id share the mark's path),
  // fsynced, renamed into place, then the directory fsynced.
  if (slow_ms_ > 0) std::this_thread::sleep_for(std::chrono::milliseconds(slow_ms_));
  try {
    plumbing::write_file_atomically(path_, fmt::format("{}\n", unix_ms));
  } catch (const plumbing::OutputError& e) {
    throw HighWaterMarkError(fmt::format("high-water mark {}: {}", path_, e.what()));
  }
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
