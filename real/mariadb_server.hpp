// mariadb_server.hpp — a real mariadbd started by idbench for a real system: private temp
// directory, its own data directory, a unix socket there and no TCP, the durability settings
// a figure depends on, and the controls the fault scenarios need (kill -9, restart, restore a
// copy of the data directory, run under libfaketime).
//
//   MariadbSettings s;  s.flush_log_at_trx_commit = 2;
//   MariadbServer db(s);                       // initialised and answering SELECT 1
//   db.socket();                               // what the adapter connects to
//   db.describe();                             // "innodb_flush_log_at_trx_commit=2, binlog off,
//   ..." auto copy = db.snapshot();                 // a cold copy of the data directory (stops and
//                                              // restarts the server around it)
//   db.kill9(); db.start();                    // crash and recovery
//   db.restore(copy); db.start();              // back to the copy: its counters go back
//
// Nothing outlives the run: built on the same DbServer plumbing as the locality engines
// (own process group, parent-death signal, InterruptGuard, swept at the next start).
//
// Thread safety: thread-compatible.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "real/server.hpp"

namespace idbench::real {

// A directory every process of a test run may share as the template data directory (the
// tests' presets set it): mariadb-install-db takes ~5 s, a copy of what it made ~0.3 s. The
// first server makes it there (under an flock of <dir>.lock, stamped with the mariadbd it was
// made for: plumbing/shared_template.hpp); the others copy it. Unset, each process makes its
// own, removed at its exit.
inline constexpr const char* kMariadbTemplateEnv = "IDBENCH_MARIADB_TEMPLATE";

// mariadbd, mariadb-install-db or the mariadb client is not installed: exit 4
// (kExitMissingTool). The message names the Debian packages.
class MariadbMissing : public ServerMissing {
 public:
  using ServerMissing::ServerMissing;
};

class MariadbServer final : public Server {
 public:
  // Sweeps stale leftovers, initialises a data directory and starts the server. Throws
  // MariadbMissing (exit 4: kExitMissingTool) when MariaDB is not installed, Error on failure.
  // The server's id is auto_increment_offset (UUID_SHORT() carries it in its top byte).
  explicit MariadbServer(MariadbSettings settings);
  ~MariadbServer();
  MariadbServer(const MariadbServer&) = delete;
  MariadbServer& operator=(const MariadbServer&) = delete;

  ServerKind kind() const override { return ServerKind::mariadb; }
  const std::string& socket() const override;
  const MariadbSettings& settings() const;
  // The settings a figure depends on, read back from the running server:
  // "MariaDB 10.11.x, innodb_flush_log_at_trx_commit=1, log_bin=OFF, innodb_autoinc_lock_mode=1".
  std::string describe() override;
  // One statement through the `mariadb` client (set-up only, never measured).
  std::string query(const std::string& sql) override;
  // UNIX_TIMESTAMP(SYSDATE(6)).
  double clock_unix_s() override;
  // The last `lines` lines of the server's log (its stdout and stderr over every start): what
  // a failure message shows of the server.
  std::string log_tail(std::size_t lines = 15) const override;

  bool running() const override;
  // mariadbd's own pid, from its pid file (written at each start): a restart shows as a new
  // pid. Throws Error when the file holds none (the server is not running).
  int pid() const override;
  void start()
      override;  // on the existing data directory; waits until it answers; no-op when running
  void stop() override;   // clean shutdown
  void kill9() override;  // SIGKILL, no shutdown: a crash
  // A cold copy of the data directory (the server is stopped for the copy and started again);
  // returns its path, inside this server's private directory.
  std::string snapshot() override;
  // Replaces the data directory with a copy from snapshot(); the server must be stopped.
  void restore(const std::string& snapshot_path) override;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace idbench::real
