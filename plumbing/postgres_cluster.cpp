// postgres_cluster.cpp — a private PostgreSQL cluster: the installed version found, initdb,
// postgres on a unix socket with the caller's settings, psql as its client.
#include "plumbing/postgres_cluster.hpp"

#include <algorithm>
#include <filesystem>

namespace idbench::plumbing {

namespace {

constexpr const char* kPostgresMissing =
    "PostgreSQL is not installed: it needs the Debian packages postgresql and "
    "postgresql-contrib (apt-get install postgresql postgresql-contrib; ./run.sh installs them)";

// Checked before the cluster's directory is made.
std::string installed_bin() {
  const std::string bin = postgres_bin_dir();
  if (bin.empty() || find_program("psql", {bin}).empty()) throw PostgresMissing(kPostgresMissing);
  return bin;
}

}  // namespace

std::string postgres_bin_dir() {
  namespace fs = std::filesystem;
  std::vector<std::string> dirs;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/usr/lib/postgresql", ec)) {
    if (fs::exists(e.path() / "bin" / "initdb")) dirs.push_back((e.path() / "bin").string());
  }
  std::sort(dirs.begin(), dirs.end(), [](const std::string& a, const std::string& b) {
    return std::stoi(fs::path(a).parent_path().filename().string()) <
           std::stoi(fs::path(b).parent_path().filename().string());
  });
  return dirs.empty() ? "" : dirs.back();
}

PostgresCluster::PostgresCluster(std::string_view prefix, const PostgresStart& start)
    : bin_(installed_bin()), run_as_(unprivileged_user_if_root()), db_(prefix, run_as_) {
  const std::string data = data_dir();
  if (start.standby_of.empty()) {
    db_.init({bin_ + "/initdb", "-D", data, "-U", "idbench", "-A", "trust", "--no-sync", "-E",
              "UTF8", "--locale=C"},
             "initdb");
  } else {
    db_.init({bin_ + "/pg_basebackup", "-h", start.standby_of, "-U", "idbench", "-D", data, "-R",
              "-X", "stream", "-c", "fast", "--no-sync"},
             "pg_basebackup of the primary");
  }
  db_.set_stop_signal(SIGINT);  // fast shutdown: sessions ended, not waited for
  std::vector<std::string> argv = start.launcher;
  argv.insert(argv.end(), {bin_ + "/postgres", "-D", data, "-k", dir(), "-c",
                           "listen_addresses=", "-c", "dynamic_shared_memory_type=mmap"});
  for (const std::string& s : start.settings) argv.insert(argv.end(), {"-c", s});
  db_.start(argv,
            {find_program("psql", {bin_}), "-X", "-q", "-A", "-t", "-F", "\t", "-v",
             "ON_ERROR_STOP=1", "-h", dir(), "-U", "idbench", "-d", "postgres"},
            "postgres", start.env);
}

}  // namespace idbench::plumbing
