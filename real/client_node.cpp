// client_node.cpp — a real-chaos client as a node process: its adapter asked for one ID per
// round trip, every reply and failure recorded (client_node.hpp).
#include "real/client_node.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "external/stderr_capture.hpp"
#include "fault/history.hpp"
#include "plumbing/raw_time.hpp"

namespace idbench::real {
namespace {

// After a failed request the client waits this long before it starts a new adapter: long
// enough not to spin on a server that is down, short enough to see it come back promptly.
constexpr int kRetryPauseMs = 20;

// A failure message is kept short: the first line of the adapter's error is enough.
std::string first_line(const std::string& s) {
  const auto nl = s.find('\n');
  return nl == std::string::npos ? s : s.substr(0, nl);
}

// The node's files could not be written: it cannot record, so it stops (exit 3).
class ClientIoError : public Error {
 public:
  using Error::Error;
};

// EOF on stdin: the pool closed it (fault::Fleet::stop with close_stdin).
class StdinWatch {
 public:
  // True once stdin has reached EOF (or failed); waits up to `wait_ms` for it (0: a look).
  bool closed(int wait_ms) {
    if (closed_) return true;
    pollfd p{0, POLLIN, 0};
    if (::poll(&p, 1, wait_ms) <= 0) return false;  // nothing yet (or EINTR: look again later)
    char buf[256];
    const ssize_t n = ::read(0, buf, sizeof buf);
    closed_ = n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN);
    return closed_;
  }

 private:
  bool closed_ = false;
};

// The node's two files, written unbuffered: one write(2) per record or line.
class ClientRecorder {
 public:
  explicit ClientRecorder(const ClientNodeConfig& c)
      : records_(open_new(c.out_dir + "/" + fault::record_file_name(c.index, c.incarnation, 0))),
        messages_(open_new(c.out_dir + "/" + fault::messages_file_name(c.index, c.incarnation))) {}
  ~ClientRecorder() {
    ::close(records_);
    ::close(messages_);
  }
  ClientRecorder(const ClientRecorder&) = delete;
  ClientRecorder& operator=(const ClientRecorder&) = delete;

  void id(const Id& id, std::int64_t true_ns, std::int64_t mono_ns, std::int64_t asked_mono_ns) {
    write_record({.hi = id.hi, .lo = id.lo, .true_ns = true_ns, .mono_ns = mono_ns,
                  .call_us = fault::call_us(asked_mono_ns, mono_ns),
                  .kind = fault::kind_word(fault::RecordKind::id)});
  }
  // The message first, so that every failure record finds its line (lo: the line's number).
  void failure(const std::string& message, std::int64_t true_ns, std::int64_t mono_ns,
               std::int64_t asked_mono_ns) {
    const std::string line = one_line(message) + "\n";
    write_all(messages_, line.data(), line.size());
    write_record({.lo = messages_written_++, .true_ns = true_ns, .mono_ns = mono_ns,
                  .call_us = fault::call_us(asked_mono_ns, mono_ns),
                  .kind = fault::kind_word(fault::RecordKind::failed_request)});
  }

 private:
  static int open_new(const std::string& path) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) throw ClientIoError(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
    return fd;
  }
  void write_record(const fault::Record& r) { write_all(records_, &r, sizeof r); }
  // A record is 40 bytes: one write(2) of it is whole in the file or absent (a regular file
  // opened O_APPEND), so a reader or a kill -9 never meets half of one but at the very end.
  void write_all(int fd, const void* data, std::size_t size) {
    const auto* bytes = static_cast<const char*>(data);
    std::size_t done = 0;
    while (done < size) {
      const ssize_t n = ::write(fd, bytes + done, size - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw ClientIoError(fmt::format("writing a record: {}", std::strerror(errno)));
      done += static_cast<std::size_t>(n);
    }
  }

  int records_;
  int messages_;
  std::uint64_t messages_written_ = 0;
};

// One adapter's life: requests until one fails or stdin closes. A failure is recorded.
void one_adapter(const ClientNodeConfig& c, const external::ExecSpec& wrapped,
                 ClientRecorder& out, StdinWatch& stdin_watch) {
  std::int64_t asked = plumbing::monotonic_ns();
  try {
    external::Program program(wrapped, c.client + 1u);
    std::vector<Id> got;
    while (!stdin_watch.closed(0)) {
      got.clear();
      asked = plumbing::monotonic_ns();
      program.request(1, got);
      // Stamped here, in the client, right after the reply: the ID's instants, as before the
      // clients were processes.
      const std::int64_t t = plumbing::true_ns();
      const std::int64_t m = plumbing::monotonic_ns();
      for (const Id& id : got) out.id(id, t, m, asked);
    }
  } catch (const external::ProgramError& e) {
    const std::string message = external::unwrapped(e.what(), wrapped.command, c.exec.command);
    out.failure(first_line(message), plumbing::true_ns(), plumbing::monotonic_ns(), asked);
  }
}

}  // namespace

int run_client_node(const ClientNodeConfig& config) {
  try {
    ClientRecorder out(config);
    const external::ExecSpec wrapped = external::capturing_stderr(config.exec, config.adapter_stderr);
    std::printf("ready\n");
    std::fflush(stdout);
    StdinWatch stdin_watch;
    while (!stdin_watch.closed(0)) {
      one_adapter(config, wrapped, out, stdin_watch);
      if (stdin_watch.closed(kRetryPauseMs)) break;  // the pause, awake to a stop
    }
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "idbench-real-client %d: %s\n", config.index, e.what());
    return 3;
  }
}

}  // namespace idbench::real
