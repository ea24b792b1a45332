// run_context.cpp — gathers the run-context block once: commit, build, host, clock source.
#include "plumbing/run_context.hpp"

#include <sys/utsname.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <optional>
#include <string_view>
#include <thread>

#include <fmt/format.h>

// Set by plumbing/CMakeLists.txt; the fallbacks keep a stray build of this file honest.
#ifndef IDBENCH_SOURCE_DIR
#define IDBENCH_SOURCE_DIR ""
#endif
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

// Quotes `s` for /bin/sh: inside single quotes only the quote itself needs care.
std::string sh_quote(std::string_view s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// stdout of `git -C dir args`, or nullopt when git fails or is missing.
std::optional<std::string> git(const std::string& dir, const std::string& args) {
  const std::string cmd = fmt::format("git -C {} {} 2>/dev/null", sh_quote(dir), args);
  std::FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) return std::nullopt;
  std::string out;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  if (::pclose(p) != 0) return std::nullopt;
  return out;
}

bool is_sha(std::string_view s) {
  if (s.size() != 40) return false;
  for (char c : s)
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  return true;
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
  const CommitInfo commit = commit_of(IDBENCH_SOURCE_DIR);
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

CommitInfo commit_of(const std::string& source_dir) {
  CommitInfo info;
  std::string commit = trim(env("IDBENCH_COMMIT"));
  if (!commit.empty()) {
    // The spellings the scripts used before the marker became a boolean.
    for (std::string_view suffix : {"-dirty", "+dirty"}) {
      if (commit.size() > suffix.size() && commit.ends_with(suffix)) {
        commit.resize(commit.size() - suffix.size());
        info.dirty = true;
      }
    }
    info.commit = commit;
  } else if (!source_dir.empty()) {
    const auto head = git(source_dir, "rev-parse --verify HEAD");
    if (head && is_sha(trim(*head))) {
      info.commit = trim(*head);
      const auto status = git(source_dir, "status --porcelain --untracked-files=no");
      info.dirty = !status || !trim(*status).empty();  // unsure means dirty
    }
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
