// db_server.cpp — a private database server's life: directory, init, start, wait, stop.
#include "plumbing/db_server.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>

#include "plumbing/error.hpp"
#include "plumbing/text_tail.hpp"

extern char** environ;

namespace idbench::plumbing {

namespace {

constexpr std::int64_t kSecondNs = 1'000'000'000;
constexpr int kInitTimeoutS = 180;
constexpr int kStartTimeoutS = 90;
constexpr int kPingTimeoutS = 10;
constexpr std::int64_t kStopGraceNs = 30 * kSecondNs;

// Our environment with `extra` (KEY=VALUE) added; an extra entry replaces ours of that KEY.
std::vector<std::string> environment_with(const std::vector<std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const std::string_view entry(*e);
    const auto key = entry.substr(0, entry.find('=') + 1);
    bool replaced = false;
    for (const auto& x : extra) replaced = replaced || std::string_view(x).starts_with(key);
    if (!replaced) env.emplace_back(entry);
  }
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

// The end of a server's or a tool's output (text_tail.hpp), for a one-line error: the
// directory holding the whole log is removed with the server.
std::string output_end(const std::string& text) {
  const std::string tail = text_tail(text);
  return tail.empty() ? "it printed nothing" : "its output ends: " + tail;
}

}  // namespace

DbServer::DbServer(std::string_view prefix, std::optional<RunAs> run_as, int stop_signal)
    : dir_(prefix, run_as),
      run_as_(run_as),
      stop_signal_(stop_signal),
      log_(dir_.path() + "/server.log") {
  if (run_as_) dir_.give_to(run_as_->uid, run_as_->gid);
}

DbServer::~DbServer() { stop(); }

CommandResult DbServer::run(const std::vector<std::string>& argv, const std::string& stdin_file,
                            int timeout_s) {
  CommandOptions options;
  options.stdin_file = stdin_file;
  options.timeout_ms = std::int64_t{timeout_s} * 1000;
  options.run_as = run_as_;
  return run_command(argv, options);
}

void DbServer::init(const std::vector<std::string>& argv, std::string_view what) {
  const auto r = run(argv, "", kInitTimeoutS);
  if (r.exit_code != 0) {
    throw Error(fmt::format("{} failed{}; {}", what, r.timed_out ? " (timed out)" : "",
                            output_end(r.out + "\n" + r.err)));
  }
}

void DbServer::start(const std::vector<std::string>& server_argv,
                     std::vector<std::string> client_argv, std::string_view what,
                     const std::vector<std::string>& env) {
  what_ = what;
  server_argv_ = server_argv;
  client_ = std::move(client_argv);
  env_ = env;
  restart();
}

void DbServer::restart() {
  if (running()) throw Error(fmt::format("{} is already running", what_));
  ChildSpec spec;
  spec.argv = server_argv_;
  if (!env_.empty()) spec.env = environment_with(env_);
  spec.out = spec.err = Stdio::file(log_);
  spec.run_as = run_as_;
  // Contained: a kill reaches every process the server started, also those that left its
  // process group (each PostgreSQL backend calls setsid(), and one busy with a query never
  // notices that its postmaster died: it stayed, attached to the shared memory, and the
  // restart after a kill -9 refused to start).
  spec.contain = true;
  server_ = std::make_unique<ChildProcess>(spec);
  const std::string ping = dir() + "/ping.sql";
  std::ofstream(ping) << "SELECT 1;\n";
  const std::int64_t deadline = monotonic_ns() + kStartTimeoutS * kSecondNs;
  while (monotonic_ns() < deadline) {
    if (server_->try_wait()) {
      // An interrupt that reached the server first is the interrupt (exit 130), not a start-up
      // failure (exit 2): CI saw a SIGINT during start-up reported as the latter.
      throw_if_interrupted();
      throw Error(
          fmt::format("{} exited during start-up; {}", what_, output_end(read_text_file(log_))));
    }
    if (run(client_, ping, kPingTimeoutS).exit_code == 0) return;
    throw_if_interrupted();
    ::usleep(100'000);
  }
  throw Error(fmt::format("{} did not start within {} s; {}", what_, kStartTimeoutS,
                          output_end(read_text_file(log_))));
}

CommandResult DbServer::run_sql_file(const std::string& path, int timeout_s) {
  auto r = run(client_, path, timeout_s);
  if (r.exit_code != 0) {
    throw Error(fmt::format("the {} client failed{}; {}", what_, r.timed_out ? " (timed out)" : "",
                            output_end(r.err)));
  }
  return r;
}

std::string DbServer::query(std::string_view sql) {
  const std::string path = dir() + "/q.sql";
  std::ofstream(path) << sql << ";\n";
  auto r = run_sql_file(path);
  while (!r.out.empty() && r.out.back() == '\n') r.out.pop_back();
  return r.out;
}

void DbServer::stop() {
  if (server_) server_->stop(kStopGraceNs, stop_signal_);
}

void DbServer::kill9() {
  if (server_) server_->kill_and_reap();
}

}  // namespace idbench::plumbing
