// line_server.cpp — the exec line protocol's server side for the C++ adapters: requests in,
// IDs out, the system's own time per request kept and written at EOF.
#include "adapters/line/line_server.hpp"

#include <signal.h>
#include <time.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

namespace idbench::line {

std::int64_t now_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

std::int64_t wait_ns(const char* name) {
  constexpr long long kDefaultMs = 5000;
  constexpr long long kMaxMs = 24LL * 3600 * 1000;  // a day: beyond it, surely a mistake
  const char* env = std::getenv(name);
  if (env == nullptr || *env == '\0') return kDefaultMs * 1'000'000;
  char* end = nullptr;
  errno = 0;
  const long long ms = std::strtoll(env, &end, 10);
  if (*end != '\0' || errno != 0 || ms < 0 || ms > kMaxMs) {
    throw UsageError(std::string(name) + " '" + env + "' is not a count of ms (0 to " +
                     std::to_string(kMaxMs) + ")");
  }
  return ms * 1'000'000;
}

unsigned long parse_request(const std::string& line) {
  std::string digits = line;
  if (!digits.empty() && digits.back() == '\r') digits.pop_back();
  bool ok = !digits.empty() && digits.size() <= 7;
  for (const char c : digits) ok = ok && c >= '0' && c <= '9';
  const unsigned long n = ok ? std::stoul(digits) : 0;
  if (n < 1 || n > kMaxRequest) {
    std::string shown;
    for (const char c : line.substr(0, 40)) shown += (c >= 0x20 && c < 0x7f) ? c : '?';
    throw UsageError("bad request '" + shown + "': want a count 1..1000000 and a newline");
  }
  return n;
}

namespace {

void write_times(const char* path, const std::vector<std::uint64_t>& times) {
  std::string text;
  for (const std::uint64_t ns : times) text += std::to_string(ns) + '\n';
  FILE* f = std::fopen(path, "w");
  bool ok = f != nullptr && std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (f != nullptr) ok = std::fclose(f) == 0 && ok;
  if (!ok) throw std::runtime_error(std::string("IDBENCH_SYSTEM_TIMES: cannot write ") + path);
}

}  // namespace

void serve(const std::function<void(unsigned long n, std::string& out)>& fill, bool timed) {
  const char* times_path = std::getenv("IDBENCH_SYSTEM_TIMES");
  timed = timed && times_path != nullptr && *times_path != '\0';
  std::vector<std::uint64_t> times;
  std::string out;
  for (std::string line; std::getline(std::cin, line);) {
    const unsigned long n = parse_request(line);
    out.clear();
    const std::int64_t start = now_ns();
    fill(n, out);
    if (timed) times.push_back(static_cast<std::uint64_t>(now_ns() - start));
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
  }
  if (timed) write_times(times_path, times);
}

int adapter_main(const char* name, int argc, char** argv,
                 void (*run)(const std::vector<std::string>& args)) {
  std::ios::sync_with_stdio(false);
  ::signal(SIGPIPE, SIG_IGN);
  try {
    run({argv + 1, argv + argc});
    return 0;
  } catch (const UsageError& e) {
    std::fprintf(stderr, "%s: %s\n", name, e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", name, e.what());
    return 1;
  }
}

}  // namespace idbench::line
