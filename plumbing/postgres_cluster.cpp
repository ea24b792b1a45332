// postgres_cluster.cpp — a private PostgreSQL cluster: the installed version found, initdb,
// postgres on a unix socket with the caller's settings, psql as its client.
#include "plumbing/postgres_cluster.hpp"

#include <signal.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "plumbing/shared_template.hpp"

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

// initdb into the data directory: from the shared template when the test run has one.
void PostgresCluster::initialise() {
  const std::string initdb = bin_ + "/initdb";
  // What the directory holds depends on these (and initdb); not on --no-sync.
  const std::vector<std::string> options = {"-U", "idbench", "-A",        "trust",
                                            "-E", "UTF8",    "--locale=C"};
  std::vector<std::string> argv = {initdb, "-D", data_dir(), "--no-sync"};
  argv.insert(argv.end(), options.begin(), options.end());
  const auto make = [&] { db_.init(argv, "initdb"); };
  const char* shared = std::getenv(kPostgresTemplateEnv);
  if (shared == nullptr || *shared == '\0') return make();
  std::string stamp = program_stamp(initdb);
  for (const std::string& o : options) stamp += o + "\n";
  fill_from_shared_template({.dir = shared, .stamp = stamp}, data_dir(), make, run_as_);
}

PostgresCluster::PostgresCluster(std::string_view prefix, const PostgresStart& start)
    : bin_(installed_bin()), run_as_(unprivileged_user_if_root()), db_(prefix, run_as_, SIGINT) {
  const std::string data = data_dir();
  if (start.standby_of.empty()) {
    initialise();
  } else {
    db_.init({bin_ + "/pg_basebackup", "-h", start.standby_of, "-U", "idbench", "-D", data, "-R",
              "-X", "stream", "-c", "fast", "--no-sync"},
             "pg_basebackup of the primary");
  }
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
