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

#include "generators/errors.hpp"

namespace idbench::real {

// A directory every process of a test run may share as the template data directory (the
// tests' presets set it): mariadb-install-db takes ~5 s, a copy of what it made ~0.3 s. The
// first server makes it there (under an flock of <dir>.lock, stamped with the mariadbd it was
// made for); the others copy it. Unset, each process makes its own, removed at its exit.
inline constexpr const char* kMariadbTemplateEnv = "IDBENCH_MARIADB_TEMPLATE";

// mariadbd, mariadb-install-db or the mariadb client is not installed: exit 4
// (kExitMissingTool). The message names the Debian packages.
class MariadbMissing : public Error {
 public:
  using Error::Error;
};

struct MariadbSettings {
  int flush_log_at_trx_commit = 1;  // innodb_flush_log_at_trx_commit: 1 (the default) or 2
  bool binlog = false;              // log_bin with sync_binlog=1
  int autoinc_lock_mode = 2;        // innodb_autoinc_lock_mode (MariaDB 10.11's default is 1)
  int auto_increment_increment = 1;
  int auto_increment_offset = 1;
  // KEY=VALUE entries added to the server's environment (LD_PRELOAD of libfaketime and its
  // FAKETIME_* settings when the scenario fakes the server's clock).
  std::vector<std::string> env;
  // A program (and its arguments) mariadbd runs under, its argv appended: the ptrace clock
  // injector ({idbench-inject, --page, PATH, --}) when the scenario fakes the clock from the
  // server's first instruction. Empty: mariadbd itself.
  std::vector<std::string> launcher;
};

class MariadbServer {
 public:
  // Sweeps stale leftovers, initialises a data directory and starts the server. Throws
  // MariadbMissing (exit 4: kExitMissingTool) when MariaDB is not installed, Error on failure.
  // The server's id is auto_increment_offset (UUID_SHORT() carries it in its top byte).
  explicit MariadbServer(MariadbSettings settings);
  ~MariadbServer();
  MariadbServer(const MariadbServer&) = delete;
  MariadbServer& operator=(const MariadbServer&) = delete;

  const std::string& socket() const;
  const MariadbSettings& settings() const;
  // The settings a figure depends on, read back from the running server:
  // "MariaDB 10.11.x, innodb_flush_log_at_trx_commit=1, log_bin=OFF, innodb_autoinc_lock_mode=1".
  std::string describe();
  // One statement through the `mariadb` client (set-up only, never measured).
  std::string query(const std::string& sql);
  // The last `lines` lines of the server's log (its stdout and stderr over every start): what
  // a failure message shows of the server.
  std::string log_tail(std::size_t lines = 15) const;

  bool running() const;
  // mariadbd's own pid, from its pid file (written at each start): a restart shows as a new
  // pid. Throws Error when the file holds none (the server is not running).
  int pid() const;
  void start();  // on the existing data directory; waits until it answers; no-op when running
  void stop();   // clean shutdown
  void kill9();  // SIGKILL, no shutdown: a crash
  // A cold copy of the data directory (the server is stopped for the copy and started again);
  // returns its path, inside this server's private directory.
  std::string snapshot();
  // Replaces the data directory with a copy from snapshot(); the server must be stopped.
  void restore(const std::string& snapshot_path);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace idbench::real
