// db_server.cpp — a private database server's life: directory, init, start, wait, stop.
#include "bench/locality/db_server.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>

#include "generators/errors.hpp"

namespace idbench::locality {

namespace {

constexpr std::int64_t kSecondNs = 1'000'000'000;
constexpr int kInitTimeoutS = 180;
constexpr int kStartTimeoutS = 90;
constexpr int kPingTimeoutS = 10;
constexpr std::int64_t kStopGraceNs = 30 * kSecondNs;

// Makes the directory after sweeping what killed runs left (the sweep must come first: it
// is the only chance a SIGKILLed run's directory has of going away).
plumbing::TempDir swept_temp_dir(std::string_view prefix) {
  plumbing::sweep_stale_temp_dirs();
  return plumbing::TempDir(prefix);
}

}  // namespace

DbServer::DbServer(std::string_view prefix, std::optional<plumbing::RunAs> run_as)
    : dir_(swept_temp_dir(prefix)), run_as_(run_as), log_(dir_.path() + "/server.log") {
  if (run_as_) dir_.give_to(run_as_->uid, run_as_->gid);
}

DbServer::~DbServer() { stop(); }

plumbing::CommandResult DbServer::run(const std::vector<std::string>& argv,
                                      const std::string& stdin_file, int timeout_s) {
  plumbing::CommandOptions options;
  options.stdin_file = stdin_file;
  options.timeout_ms = std::int64_t{timeout_s} * 1000;
  options.run_as = run_as_;
  return plumbing::run_command(argv, options);
}

void DbServer::init(const std::vector<std::string>& argv, std::string_view what) {
  const auto r = run(argv, "", kInitTimeoutS);
  if (r.exit_code != 0) {
    throw Error(fmt::format("{} failed{}:\n{}{}", what, r.timed_out ? " (timed out)" : "", r.out,
                            r.err));
  }
}

void DbServer::start(const std::vector<std::string>& server_argv,
                     std::vector<std::string> client_argv, std::string_view what) {
  what_ = what;
  client_ = std::move(client_argv);
  plumbing::ChildSpec spec;
  spec.argv = server_argv;
  spec.out = spec.err = plumbing::Stdio::file(log_);
  spec.run_as = run_as_;
  server_ = std::make_unique<plumbing::ChildProcess>(spec);
  const std::string ping = dir() + "/ping.sql";
  std::ofstream(ping) << "SELECT 1;\n";
  const std::int64_t deadline = plumbing::monotonic_ns() + kStartTimeoutS * kSecondNs;
  while (plumbing::monotonic_ns() < deadline) {
    if (server_->try_wait()) {
      throw Error(fmt::format("{} exited during start-up:\n{}", what_,
                              plumbing::read_text_file(log_)));
    }
    if (run(client_, ping, kPingTimeoutS).exit_code == 0) return;
    plumbing::throw_if_interrupted();
    ::usleep(100'000);
  }
  throw Error(fmt::format("{} did not start within {} s:\n{}", what_, kStartTimeoutS,
                          plumbing::read_text_file(log_)));
}

plumbing::CommandResult DbServer::run_sql_file(const std::string& path, int timeout_s) {
  auto r = run(client_, path, timeout_s);
  if (r.exit_code != 0) {
    throw Error(fmt::format("the {} client failed{}:\n{}", what_,
                            r.timed_out ? " (timed out)" : "", r.err));
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
  if (server_) server_->stop(kStopGraceNs);
}

}  // namespace idbench::locality
