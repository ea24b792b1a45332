// run_context.cpp — gathers the run-context block once: commit, build, host, clock source.
#include "plumbing/run_context.hpp"

#include <sys/utsname.h>

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <string_view>
#include <thread>
#include <utility>

#include <fmt/format.h>

// Set by plumbing/CMakeLists.txt; the fallbacks keep a stray build of this file honest.
#ifndef IDBENCH_BUILD_TYPE
#define IDBENCH_BUILD_TYPE "unknown"
#endif
#ifndef IDBENCH_COMPILER
#define IDBENCH_COMPILER "unknown"
#endif
#ifndef IDBENCH_SANITIZERS
#define IDBENCH_SANITIZERS ""
#endif

namespace idbench::plumbing {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? std::string() : std::string(v);
}

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  std::size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

bool truthy(std::string v) {
  for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return !(v == "0" || v == "false" || v == "no");
}

// The "model name" of the first CPU in /proc/cpuinfo.
std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon != std::string::npos) return trim(line.substr(colon + 1));
  }
  return "unknown";
}

std::string first_line_of(const char* path) {
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line)) return "unknown";
  line = trim(line);
  return line.empty() ? "unknown" : line;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

RunContext collect() {
  RunContext c;
  const CommitInfo commit = commit_of(built_commit());
  c.commit = commit.commit;
  c.dirty = commit.dirty;
  c.build_type = IDBENCH_BUILD_TYPE;
  c.compiler = IDBENCH_COMPILER;
  c.sanitizers = IDBENCH_SANITIZERS;
  utsname u{};
  if (::uname(&u) == 0) {
    c.host = u.nodename;
    c.os = fmt::format("{} {}", u.sysname, u.release);
  } else {
    c.host = c.os = "unknown";
  }
  c.cpu_model = cpu_model();
  c.cpus = static_cast<int>(std::thread::hardware_concurrency());
  c.started_utc = utc_now();
  double load[1] = {0};
  if (::getloadavg(load, 1) == 1) c.load_avg_1m = load[0];
  c.clock_source = first_line_of("/sys/devices/system/clocksource/clocksource0/current_clocksource");
  return c;
}

}  // namespace

// The default for programs that do not link the build's answer (idbench_build_commit defines
// the strong one). Weak, so never inlined: the linker decides.
[[gnu::weak]] CommitInfo built_commit() { return {}; }

CommitInfo commit_of(CommitInfo built) {
  CommitInfo info = std::move(built);
  std::string commit = trim(env("IDBENCH_COMMIT"));
  if (!commit.empty()) {
    info.dirty = false;
    // The spellings the scripts used before the marker became a boolean.
    for (std::string_view suffix : {"-dirty", "+dirty"}) {
      if (commit.size() > suffix.size() && commit.ends_with(suffix)) {
        commit.resize(commit.size() - suffix.size());
        info.dirty = true;
      }
    }
    info.commit = commit;
  }
  const std::string dirty = trim(env("IDBENCH_DIRTY"));
  if (!dirty.empty()) info.dirty = truthy(dirty);
  return info;
}

const RunContext& current_run_context() {
  // A function-local static: C++ guarantees one thread initialises it, the others wait.
  static const RunContext context = collect();
  return context;
}

nlohmann::json to_json(const RunContext& c) {
  return {{"idbench_version", 1},     {"commit", c.commit},
          {"dirty", c.dirty},         {"build_type", c.build_type},
          {"compiler", c.compiler},   {"sanitizers", c.sanitizers},
          {"host", c.host},           {"os", c.os},
          {"cpu_model", c.cpu_model}, {"cpus", c.cpus},
          {"started_utc", c.started_utc}, {"load_avg_1m", c.load_avg_1m},
          {"clock_source", c.clock_source}};
}

}  // namespace idbench::plumbing
