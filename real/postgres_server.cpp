// postgres_server.cpp — a project-started PostgreSQL for the real systems: settings to -c
// flags, crash, restart, cold copies of the data directory, and the settings read back.
#include "real/postgres_server.hpp"

#include <fmt/format.h>
#include <libpq-fe.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "plumbing/child_process.hpp"
#include "plumbing/file_tree.hpp"
#include "plumbing/postgres_cluster.hpp"
#include "plumbing/postgres_shm.hpp"
#include "real/server_files.hpp"

namespace idbench::real {

namespace {

plumbing::PostgresStart start_of(const PostgresSettings& s) {
  if (s.synchronous_commit != "on" && s.synchronous_commit != "off") {
    throw Error(fmt::format("synchronous_commit '{}': want on or off", s.synchronous_commit));
  }
  return {.settings = {"synchronous_commit=" + s.synchronous_commit, "fsync=on",
                       "full_page_writes=on", "shared_buffers=64MB", "autovacuum=off"},
          .env = s.env,
          .launcher = s.launcher,
          .standby_of = s.standby_of};
}

// The cluster, or ServerMissing when PostgreSQL is not installed.
std::unique_ptr<plumbing::PostgresCluster> start_cluster(const PostgresSettings& s) {
  try {
    return std::make_unique<plumbing::PostgresCluster>("idbench-pg", start_of(s));
  } catch (const plumbing::PostgresMissing& e) {
    throw ServerMissing(e.what());
  }
}

}  // namespace

// One libpq connection kept open for the clock probe (outside the anonymous namespace: a
// member of State, whose linkage is external): a probe through psql paid a process start
// (up to a second under load) inside the interval it stamps with true time, so a 1 s step could
// read as not applied. Reconnected when the server went away (a restart, a crash).
class PostgresProbeConnection {
 public:
  PostgresProbeConnection() = default;
  ~PostgresProbeConnection() { drop(); }
  PostgresProbeConnection(const PostgresProbeConnection&) = delete;
  PostgresProbeConnection& operator=(const PostgresProbeConnection&) = delete;

  // The one value `sql` answers, on a connection to the server whose socket is in `dir`;
  // throws Error when it cannot.
  std::string value(const std::string& dir, const char* sql) {
    for (int attempt = 0;; ++attempt) {
      if (conn_ == nullptr) connect(dir);
      PGresult* r = PQexec(conn_, sql);
      const bool ok = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1;
      std::string text = ok ? PQgetvalue(r, 0, 0) : PQresultErrorMessage(r);
      PQclear(r);
      if (ok) return text;
      const bool lost = PQstatus(conn_) != CONNECTION_OK;
      drop();
      if (!lost || attempt > 0) throw Error(fmt::format("postgres: {}", one_line(text)));
    }
  }
  // Closed before the server stops or is killed: the probe's session is not a client's.
  void drop() {
    if (conn_ != nullptr) PQfinish(conn_);
    conn_ = nullptr;
  }

 private:
  void connect(const std::string& dir) {
    const char* keys[] = {"host", "user", "dbname", "connect_timeout", nullptr};
    const char* values[] = {dir.c_str(), "idbench", "postgres", "10", nullptr};
    conn_ = PQconnectdbParams(keys, values, 0);
    if (PQstatus(conn_) != CONNECTION_OK) {
      const std::string why = one_line(PQerrorMessage(conn_));
      drop();
      throw Error(fmt::format("postgres: cannot connect for the clock probe: {}", why));
    }
  }

  PGconn* conn_ = nullptr;
};

struct PostgresServer::State {
  explicit State(const PostgresSettings& s) : settings(s), pg(start_cluster(s)) {}
  PostgresSettings settings;
  std::unique_ptr<plumbing::PostgresCluster> pg;
  int snapshots = 0;
  PostgresProbeConnection probe;  // after pg: closed before the server stops
};

PostgresServer::PostgresServer(PostgresSettings settings)
    : state_(std::make_unique<State>(settings)) {}

PostgresServer::~PostgresServer() = default;

const std::string& PostgresServer::socket() const { return state_->pg->dir(); }

std::string PostgresServer::describe() {
  std::istringstream row(
      query("SELECT current_setting('server_version'), current_setting('synchronous_commit'), "
            "current_setting('fsync'), current_setting('full_page_writes'), "
            "current_setting('wal_level')"));
  std::string version, sync, fsync, fpw, wal;
  std::getline(row, version, '\t');
  row >> sync >> fsync >> fpw >> wal;
  return fmt::format(
      "PostgreSQL {}, synchronous_commit={}, fsync={}, full_page_writes={}, "
      "wal_level={}",
      version, sync, fsync, fpw, wal);
}

std::string PostgresServer::query(const std::string& sql) { return state_->pg->query(sql); }

double PostgresServer::clock_unix_s() {
  const std::string text =
      state_->probe.value(state_->pg->dir(), "SELECT extract(epoch FROM clock_timestamp())");
  try {
    return std::stod(text);
  } catch (const std::exception&) {
    throw Error(fmt::format("postgres's clock answered '{}'", one_line(text)));
  }
}

std::string PostgresServer::log_tail(std::size_t lines) const {
  return file_tail_lines(state_->pg->dir() + "/server.log", lines);
}

bool PostgresServer::running() const { return state_->pg->db().running(); }

int PostgresServer::pid() const {
  // postmaster.pid's first line is the postmaster's pid.
  return pid_from_file(state_->pg->data_dir() + "/postmaster.pid", running(), "postgres");
}

void PostgresServer::start() {
  if (!running()) state_->pg->db().restart();
}

void PostgresServer::stop() {
  state_->probe.drop();
  state_->pg->db().stop();
}

void PostgresServer::kill9() {
  state_->probe.drop();
  state_->pg->db().kill9();
}

std::string PostgresServer::snapshot() {
  State& st = *state_;
  const std::string path = fmt::format("{}/snapshot-{}", st.pg->dir(), ++st.snapshots);
  if (!running()) {
    plumbing::copy_tree(st.pg->data_dir(), path);
    return path;
  }
  // A base backup of the running server, through its socket, its WAL streamed alongside: what
  // a restore from last night's backup puts back.
  plumbing::CommandOptions options;
  options.timeout_ms = 120'000;
  const auto r =
      plumbing::run_command({st.pg->bin() + "/pg_basebackup", "-h", st.pg->dir(), "-U", "idbench",
                             "-D", path, "-X", "stream", "-c", "fast", "--no-sync"},
                            options);
  if (r.exit_code != 0) {
    throw Error(fmt::format("pg_basebackup failed: {}{}", one_line(r.out), one_line(r.err)));
  }
  return path;
}

void PostgresServer::restore(const std::string& snapshot_path) {
  if (running()) throw Error("PostgresServer::restore: stop the server first");
  const std::string data = state_->pg->data_dir();
  // A server killed before the restore left its SysV segment, keyed by this directory's inode:
  // once the directory is replaced nothing can tell the segment is ours any more.
  plumbing::remove_postgres_segments({data});
  replace_with_copy(data, snapshot_path);
  if (const auto& user = state_->pg->run_as()) plumbing::give_tree(data, user->uid, user->gid);
}

}  // namespace idbench::real
