// db_server.hpp — the one way a real engine gets its private database server: a fresh temp
// directory, the data directory initialised, the server started on a unix socket there,
// waited for until its client answers `SELECT 1`, and stopped before the directory goes.
//
//   DbServer db("idbench-postgres", unprivileged_user_if_root());
//   db.init({initdb, "-D", db.dir() + "/data", ...}, "initdb");
//   db.start({postgres, "-D", ..., "-k", db.dir()}, {psql, "-h", db.dir(), ...}, "postgres");
//   std::string v = db.query("SHOW server_version");
//   db.kill9(); db.restart();                 // a crash, then the same server on the same data
//
// Nothing outlives the run:
//   * the server and every command are plumbing::ChildProcess children: own process group,
//     PR_SET_PDEATHSIG set after the drop to `nobody`, so a `kill -9` of idbench takes the
//     server with it; the server is a contained child, so its kill9() (and idbench's death)
//     reaches every process it started, also those that left its group (PostgreSQL's
//     backends call setsid()), and returns once none is left;
//   * SIGINT/SIGTERM/SIGHUP while a DbServer lives kill the server at once and unwind with
//     plumbing::Interrupted, removing the directory;
//   * the destructor stops the server (its stop signal, then SIGKILL after 30 s) and removes the
//     directory; what a SIGKILL leaves is swept (owner pid gone) when the next engine starts.
//     Either removal also takes the SysV segment a killed PostgreSQL leaves (postgres_shm.hpp).
//
// Thread safety: thread-compatible.
#pragma once

#include <signal.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "plumbing/child_process.hpp"
#include "plumbing/temp_dir.hpp"

namespace idbench::plumbing {

class DbServer {
 public:
  // Makes `$TMPDIR/<prefix>-<pid>-XXXXXX` (sweeping stale idbench temp dirs first), given to
  // `run_as` (who then also runs every command and the server) when set; in /tmp instead when
  // `run_as` cannot reach $TMPDIR (temp_dir.hpp). `stop_signal` is the server's clean
  // shutdown (PostgreSQL's SIGTERM waits for every client to leave; its SIGINT ends them).
  DbServer(std::string_view prefix, std::optional<RunAs> run_as, int stop_signal = SIGTERM);
  ~DbServer();
  DbServer(const DbServer&) = delete;
  DbServer& operator=(const DbServer&) = delete;

  const std::string& dir() const { return dir_.path(); }

  // Runs an initialisation command to completion (at most 180 s); throws Error naming `what`
  // with its output when it fails.
  void init(const std::vector<std::string>& argv, std::string_view what);
  // Starts the server (stdout and stderr to <dir>/server.log), then runs `client_argv` (a
  // client that reads SQL on stdin) with `SELECT 1;` until it succeeds, for at most 90 s.
  // `env` (KEY=VALUE) is added to the server's environment only (libfaketime), not the
  // client's. Throws Error with the log when the server exits or does not answer.
  void start(const std::vector<std::string>& server_argv, std::vector<std::string> client_argv,
             std::string_view what, const std::vector<std::string>& env = {});
  // start() again with the last arguments, on the same directory (after stop() or kill9()).
  void restart();
  // True while the server process runs.
  bool running() const { return server_ && server_->running(); }
  // Runs the client on a SQL file; throws Error with its stderr when it fails.
  CommandResult run_sql_file(const std::string& path, int timeout_s = 1800);
  // One statement; its output without trailing newlines.
  std::string query(std::string_view sql);
  // The stop signal, then SIGKILL after 30 s; idempotent (the destructor calls it).
  void stop();
  // SIGKILL to the server's group, no shutdown (a crash); idempotent.
  void kill9();

 private:
  CommandResult run(const std::vector<std::string>& argv, const std::string& stdin_file,
                    int timeout_s);

  InterruptGuard guard_;  // declared first: outlives the server and the directory
  TempDir dir_;
  std::optional<RunAs> run_as_;
  int stop_signal_;
  std::vector<std::string> server_argv_;
  std::vector<std::string> client_;
  std::vector<std::string> env_;
  std::string what_;
  std::string log_;
  std::unique_ptr<ChildProcess> server_;
};

}  // namespace idbench::plumbing
