// postgres_cluster.hpp — a private PostgreSQL cluster on a DbServer (db_server.hpp): Debian's
// newest installed PostgreSQL, initdb into <dir>/data, postgres listening on a unix socket in
// <dir> only, run as `nobody` when idbench is root (PostgreSQL refuses root). The locality
// engine and the real PostgreSQL systems both start theirs here, each with its own settings.
//
//   PostgresCluster pg("idbench-postgres", {"fsync=off", "autovacuum=off"});
//   pg.query("SHOW server_version");          // through psql, as user idbench
//   pg.db().kill9(); pg.db().restart();       // a crash and its recovery
//
// Dynamic shared memory is files in the data directory (dynamic_shared_memory_type=mmap), not
// /dev/shm: a killed server never unlinks its /dev/shm/PostgreSQL.N segments, while the data
// directory goes with the run's temp dir or the next run's sweep, which also removes the SysV
// segment a killed postmaster leaves (postgres_shm.hpp).
//
// The cluster's directory is one its server user can reach (in /tmp when $TMPDIR is closed to
// `nobody`: temp_dir.hpp). Its clean stop is PostgreSQL's fast shutdown (SIGINT), which ends
// the clients' sessions: the default (SIGTERM, smart) waits for them to leave, and a client
// pool that stays connected made every stop a 30 s wait and then a kill.
//
// Thread safety: thread-compatible.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "plumbing/db_server.hpp"
#include "plumbing/error.hpp"

namespace idbench::plumbing {

// PostgreSQL (initdb, postgres, psql) is not installed. The message names the Debian packages.
class PostgresMissing : public Error {
 public:
  using Error::Error;
};

// A directory every process of a test run may share as the template of what initdb makes (the
// tests' presets set it): initdb takes seconds, a copy of what it made a fraction of one. The
// first cluster makes it (plumbing/shared_template.hpp: stamped with initdb and its options);
// the others copy it, given to the server's user. A standby (pg_basebackup) never uses it.
// Unset, every cluster runs initdb.
inline constexpr const char* kPostgresTemplateEnv = "IDBENCH_POSTGRES_TEMPLATE";

// The newest /usr/lib/postgresql/<version>/bin holding initdb; empty when there is none.
std::string postgres_bin_dir();

struct PostgresStart {
  std::vector<std::string> settings;  // "name=value", each passed as -c
  std::vector<std::string> env;       // KEY=VALUE for the server only (libfaketime)
  std::vector<std::string> launcher;  // a program postgres runs under (the ptrace injector)
  // The socket directory of a running primary: the cluster is then its streaming standby,
  // made by pg_basebackup -R (replication over that unix socket, no TCP) instead of initdb.
  std::string standby_of;
};

class PostgresCluster {
 public:
  // Initialises the cluster and starts it. Throws PostgresMissing, or Error when it fails.
  PostgresCluster(std::string_view prefix, const PostgresStart& start);

  DbServer& db() { return db_; }
  const std::string& dir() const { return db_.dir(); }  // also the socket's directory
  std::string data_dir() const { return db_.dir() + "/data"; }
  const std::string& bin() const { return bin_; }
  // The user the server (and its files) run as; nullopt: this process's.
  const std::optional<RunAs>& run_as() const { return run_as_; }
  std::string query(std::string_view sql) { return db_.query(sql); }

 private:
  void initialise();

  std::string bin_;
  std::optional<RunAs> run_as_;
  DbServer db_;
};

}  // namespace idbench::plumbing
