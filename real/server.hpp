// server.hpp — a database server idbench starts for a real system, of any kind (MariaDB,
// PostgreSQL, Redis), as the bench and the fault scenarios see it: its socket, its settings
// read back, and the controls the faults need (kill -9, restart, a cold copy and its restore,
// its own wall clock).
//
//   ServerSettings s;  s.redis.persistence = RedisPersistence::aof_everysec;
//   std::unique_ptr<Server> db = start_server(ServerKind::redis, s);
//   db->socket();                       // what the adapter connects to
//   db->describe();                     // "Redis 7.0.15, appendonly=yes, appendfsync=everysec"
//   db->kill9(); db->start();           // a crash and the restart on the same data
//
// Every kind lives in a private directory (plumbing::DbServer: own process group, parent-death
// signal, swept at the next start), answers on a unix socket only, and states the durability
// its figures depend on (durability_label(), durability_json()).
//
// Thread safety: thread-compatible.
#pragma once

#include <cstddef>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "generators/errors.hpp"

namespace idbench::real {

enum class ServerKind { none, mariadb, postgres, redis };
std::string_view name_of(ServerKind kind);  // "", "mariadb", "postgres", "redis"

// A server's programs are not installed: exit 4 (kExitMissingTool). The message names the
// Debian packages.
class ServerMissing : public Error {
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

struct PostgresSettings {
  // synchronous_commit: "on" (PostgreSQL's default: a commit waits for its WAL fsync) or "off".
  // fsync stays on.
  std::string synchronous_commit = "on";
  std::vector<std::string> env;       // as MariadbSettings::env (libfaketime)
  std::vector<std::string> launcher;  // as MariadbSettings::launcher (ptrace injector)
  // A running primary's socket directory: the server is its asynchronous streaming standby.
  std::string standby_of;
};

// Redis's persistence: the append-only file fsynced at every write, or once a second, or no
// append-only file and RDB snapshots only (Debian's default save points).
enum class RedisPersistence { aof_always, aof_everysec, rdb };
std::string_view name_of(RedisPersistence p);  // "always", "everysec", "rdb"
// "always", "everysec" or "rdb"; throws Error naming the three for anything else.
RedisPersistence parse_redis_persistence(std::string_view text);

// Redis 7.0's default RDB save points ("after 3600 s if 1 key changed, ..."), as Debian ships
// them: what "RDB snapshots only" runs with.
inline constexpr const char* kRedisSavePoints = "3600 1 300 100 60 10000";

struct RedisSettings {
  RedisPersistence persistence = RedisPersistence::aof_always;
  std::vector<std::string> env;  // as MariadbSettings::env (libfaketime)
  // Replication, which Redis speaks over TCP only: the loopback port this server also listens
  // on (0: the unix socket alone), and the port of the master it replicates asynchronously
  // (0: none).
  int port = 0;
  int replica_of_port = 0;
};

// A run's settings for every kind; a server takes its kind's.
struct ServerSettings {
  ServerSettings() = default;
  ServerSettings(MariadbSettings m) : mariadb(std::move(m)) {}  // NOLINT: MariaDB's are common
  MariadbSettings mariadb;
  PostgresSettings postgres;
  RedisSettings redis;
};

// The durability a figure depends on, for `kind`'s server: "flush=1", "flush=2 binlog",
// "synchronous_commit=on", "appendfsync=always", "rdb"; empty for none.
std::string durability_label(ServerKind kind, const ServerSettings& s);
// The same as JSON: {"innodb_flush_log_at_trx_commit": 1, "binlog": false},
// {"synchronous_commit": "on", "fsync": true}, {"appendonly": true, "appendfsync": "always"}
// ({"appendonly": false, "save": "3600 1 300 100 60 10000"} for RDB); null for none.
nlohmann::json durability_json(ServerKind kind, const ServerSettings& s);

class Server {
 public:
  virtual ~Server() = default;
  virtual ServerKind kind() const = 0;
  // What the adapter connects to: a socket file (MariaDB, Redis) or the socket's directory
  // (PostgreSQL's host).
  virtual const std::string& socket() const = 0;
  // The settings a figure depends on, read back from the running server, with its version.
  virtual std::string describe() = 0;
  // One statement (or command) through the server's own client: set-up and probes only.
  virtual std::string query(const std::string& statement) = 0;
  // The server's own wall clock, Unix seconds, by its own function (SYSDATE(6),
  // clock_timestamp(), TIME): what a clock fault moves.
  virtual double clock_unix_s() = 0;
  // The last `lines` lines of the server's log over every start.
  virtual std::string log_tail(std::size_t lines = 15) const = 0;
  virtual bool running() const = 0;
  // The server's own pid (its pid file: a restart shows as a new pid); throws Error when it
  // does not run.
  virtual int pid() const = 0;
  virtual void start() = 0;  // on the existing data; waits until it answers; no-op when running
  virtual void stop() = 0;   // clean shutdown
  virtual void kill9() = 0;  // SIGKILL, no shutdown: a crash
  // A copy of its data, its path: MariaDB and Redis copy their data directory cold (stopped
  // around it, started again if it ran); a running PostgreSQL is copied by pg_basebackup while
  // it serves (WAL streamed with it), a stopped one cold.
  virtual std::string snapshot() = 0;
  // Replaces the data with a copy from snapshot(); the server must be stopped.
  virtual void restore(const std::string& snapshot_path) = 0;
};

// Starts a server of `kind` (not none) with its part of `settings`. Throws ServerMissing when
// its programs are not installed, Error when it does not start.
std::unique_ptr<Server> start_server(ServerKind kind, const ServerSettings& settings);

}  // namespace idbench::real
