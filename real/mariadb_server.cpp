// mariadb_server.cpp — a project-started mariadbd for the real systems: settings to flags,
// crash, restart, cold copies of the data directory, and the settings read back.
#include "real/mariadb_server.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <optional>
#include <sstream>

#include "plumbing/db_server.hpp"
#include "plumbing/file_tree.hpp"
#include "plumbing/shared_template.hpp"
#include "plumbing/temp_dir.hpp"
#include "real/server_files.hpp"

namespace idbench::real {

// The installed MariaDB programs. Outside the anonymous namespace because MariadbServer::State
// holds one: a member of an internal-linkage type in a type with external linkage draws
// -Wsubobject-linkage when the sanitizer preset's unity build includes this file.
struct MariadbPrograms {
  std::string server, install, client;
};

namespace {

namespace fs = std::filesystem;

constexpr const char* kMissing =
    "MariaDB is not installed: the real MariaDB systems need the Debian packages "
    "mariadb-server and mariadb-client (apt-get install mariadb-server mariadb-client; "
    "./run.sh installs them)";

MariadbPrograms find_programs() {
  MariadbPrograms p{plumbing::find_program("mariadbd"),
                    plumbing::find_program("mariadb-install-db"),
                    plumbing::find_program("mariadb")};
  if (p.server.empty() || p.install.empty() || p.client.empty()) throw MariadbMissing(kMissing);
  return p;
}

// Runs mariadb-install-db into `dir`/data. A private --tmpdir (passed through to the bootstrap
// server): a starting mariadbd removes stale #sql files from its tmpdir, which in a shared
// /tmp are another server's tables.
void install_data_directory(const MariadbPrograms& p, const std::string& dir) {
  std::vector<std::string> argv = {p.install,
                                   "--no-defaults",
                                   "--datadir=" + dir + "/data",
                                   "--tmpdir=" + dir,
                                   "--auth-root-authentication-method=normal",
                                   "--skip-test-db"};
  if (geteuid() == 0) argv.push_back("--user=root");
  plumbing::CommandOptions options;
  options.timeout_ms = 180'000;
  const auto r = plumbing::run_command(argv, options);
  if (r.exit_code != 0) {
    throw Error(fmt::format("mariadb-install-db failed{}: {}{}", r.timed_out ? " (timed out)" : "",
                            r.out, r.err));
  }
}

// The first server of a process makes a template data directory, every server copies it; the
// template lives in its own idbench temp dir (removed at exit, swept by the next run after a
// SIGKILL). With kMariadbTemplateEnv set, the template is the one a test run shares.
class Template {
 public:
  // Makes the data directory <dir>/data of a server whose directory is `dir`: a copy of the
  // template, made first if needed.
  static void copy_to(const MariadbPrograms& p, const std::string& dir) {
    const std::string data = dir + "/data";
    const char* shared = std::getenv(kMariadbTemplateEnv);
    if (shared != nullptr && *shared != '\0') {
      // What a shared template was made for: mariadbd (another MariaDB makes it again).
      return plumbing::fill_from_shared_template(
          {.dir = shared, .stamp = plumbing::program_stamp(p.server)}, data,
          [&] { install_data_directory(p, dir); }, std::nullopt);
    }
    static Template t;
    std::lock_guard lock(t.mutex_);
    if (!t.dir_) {
      auto made = std::make_unique<plumbing::TempDir>("idbench-mariadb-template");
      install_data_directory(p, made->path());
      t.dir_ = std::move(made);
    }
    plumbing::copy_tree(t.dir_->path() + "/data", data);
  }

 private:
  std::mutex mutex_;
  std::unique_ptr<plumbing::TempDir> dir_;
};

std::vector<std::string> server_argv(const MariadbPrograms& p, const MariadbSettings& s,
                                     const std::string& dir) {
  std::vector<std::string> argv = {
      p.server, "--no-defaults", "--datadir=" + dir + "/data", "--tmpdir=" + dir + "/tmp",
      "--socket=" + dir + "/mysqld.sock", "--skip-networking", "--pid-file=" + dir + "/mysqld.pid",
      // Root over the socket without a password, as the locality engine does.
      "--skip-grant-tables",
      fmt::format("--innodb-flush-log-at-trx-commit={}", s.flush_log_at_trx_commit),
      fmt::format("--innodb-autoinc-lock-mode={}", s.autoinc_lock_mode),
      fmt::format("--auto-increment-increment={}", s.auto_increment_increment),
      fmt::format("--auto-increment-offset={}", s.auto_increment_offset),
      fmt::format("--server-id={}", s.auto_increment_offset)};
  if (s.binlog) {
    argv.insert(argv.end(), {"--log-bin=binlog", "--sync-binlog=1"});
  } else {
    argv.emplace_back("--skip-log-bin");
  }
  if (geteuid() == 0) argv.emplace_back("--user=root");  // it stays in its private directory
  if (!s.launcher.empty()) argv.insert(argv.begin(), s.launcher.begin(), s.launcher.end());
  return argv;
}

}  // namespace

struct MariadbServer::State {
  explicit State(MariadbSettings s) : settings(std::move(s)), db("idbench-mariadb", std::nullopt) {}
  MariadbSettings settings;
  MariadbPrograms programs;
  plumbing::DbServer db;
  std::string socket;
  int snapshots = 0;
};

MariadbServer::MariadbServer(MariadbSettings settings) {
  const MariadbPrograms programs = find_programs();  // before any directory is made
  state_ = std::make_unique<State>(std::move(settings));
  State& st = *state_;
  st.programs = programs;
  st.socket = st.db.dir() + "/mysqld.sock";
  fs::create_directory(st.db.dir() + "/tmp");
  Template::copy_to(programs, st.db.dir());
  st.db.start(server_argv(programs, st.settings, st.db.dir()),
              {programs.client, "--no-defaults", "--socket=" + st.socket, "--user=root", "--batch",
               "--skip-column-names"},
              "mariadbd", st.settings.env);
}

MariadbServer::~MariadbServer() = default;

const std::string& MariadbServer::socket() const { return state_->socket; }
const MariadbSettings& MariadbServer::settings() const { return state_->settings; }

std::string MariadbServer::describe() {
  std::istringstream row(
      query("SELECT VERSION(), @@innodb_flush_log_at_trx_commit, @@log_bin, @@sync_binlog, "
            "@@innodb_autoinc_lock_mode, @@auto_increment_increment, @@auto_increment_offset, "
            "@@server_id"));
  std::string version, flush, log_bin, sync_binlog, lock_mode, increment, offset, server_id;
  std::getline(row, version, '\t');
  row >> flush >> log_bin >> sync_binlog >> lock_mode >> increment >> offset >> server_id;
  const bool binlog = log_bin == "1";
  return fmt::format(
      "MariaDB {}, innodb_flush_log_at_trx_commit={}, log_bin={}{}, innodb_autoinc_lock_mode={}, "
      "auto_increment_increment={}, auto_increment_offset={}, server_id={}",
      version, flush, binlog ? "ON" : "OFF", binlog ? ", sync_binlog=" + sync_binlog : "",
      lock_mode, increment, offset, server_id);
}

std::string MariadbServer::query(const std::string& sql) { return state_->db.query(sql); }

double MariadbServer::clock_unix_s() {
  const std::string text = query("SELECT UNIX_TIMESTAMP(SYSDATE(6))");
  try {
    return std::stod(text);
  } catch (const std::exception&) {
    throw Error(fmt::format("mariadbd's clock answered '{}'", one_line(text)));
  }
}

std::string MariadbServer::log_tail(std::size_t lines) const {
  return file_tail_lines(state_->db.dir() + "/server.log", lines);
}

bool MariadbServer::running() const { return state_->db.running(); }

int MariadbServer::pid() const {
  return pid_from_file(state_->db.dir() + "/mysqld.pid", running(), "mariadbd");
}

void MariadbServer::start() {
  if (!running()) state_->db.restart();
}

void MariadbServer::stop() { state_->db.stop(); }

void MariadbServer::kill9() { state_->db.kill9(); }

std::string MariadbServer::snapshot() { return cold_snapshot(state_->db, state_->snapshots); }

void MariadbServer::restore(const std::string& snapshot_path) {
  restore_stopped(state_->db, "MariadbServer", snapshot_path);
}

}  // namespace idbench::real
