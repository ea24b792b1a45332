// line_server.hpp — the server side of the exec line protocol (docs/exec-protocol.md) that the
// C++ adapters share: read "N\n", answer N IDs one a line, flushed; at EOF write the
// nanoseconds each request spent in the system to $IDBENCH_SYSTEM_TIMES when it is set.
//
//   serve([&](unsigned long n, std::string& out) { ... append n lines ... });
//
// The time of a request is taken on the monotonic clock around `fill` alone: neither reading
// the request nor writing the answer is the system's.
//
// Thread safety: one thread (it owns stdin and stdout).
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace idbench::line {

// A bad request or bad usage: the adapter exits 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline constexpr unsigned long kMaxRequest = 1'000'000;  // external::kMaxRequest

// CLOCK_MONOTONIC in ns.
std::int64_t now_ns();

// How long a server may stay unreachable before the adapter gives up: $`name` in ms, 5000 when
// unset or empty, in ns. UsageError when it is not a count of ms.
std::int64_t wait_ns(const char* name);

// The count N of a request line ("1000", "1000\r"), or UsageError.
unsigned long parse_request(const std::string& line);

// Answers every request on stdin with `fill` until EOF; then, when `timed` and
// $IDBENCH_SYSTEM_TIMES is set, writes the request times there (std::runtime_error when it
// cannot). A program that serves no system (a counter) passes timed = false: it has no own
// share to report.
void serve(const std::function<void(unsigned long n, std::string& out)>& fill, bool timed = true);

// An adapter's main: SIGPIPE ignored (a killed server is an error to handle), `run` with the
// arguments; UsageError is one line and exit 2, any other error one line and exit 1, each
// prefixed by `name`.
int adapter_main(const char* name, int argc, char** argv,
                 void (*run)(const std::vector<std::string>& args));

}  // namespace idbench::line
