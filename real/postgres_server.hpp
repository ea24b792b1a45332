// postgres_server.hpp — a real PostgreSQL server started by idbench for a real system: a
// private cluster (plumbing/postgres_cluster.hpp) on a unix socket, with the durability a
// figure depends on (synchronous_commit; fsync on), and the controls the faults need.
//
//   PostgresServer pg(PostgresSettings{});     // initdb'd and answering SELECT 1
//   pg.socket();                               // the socket's directory: libpq's host
//   pg.describe();                             // "PostgreSQL 15.x, synchronous_commit=on, ..."
//   pg.kill9(); pg.start();                    // crash recovery from the WAL
//   auto copy = pg.snapshot();                 // pg_basebackup while it serves
//   pg.stop(); pg.restore(copy); pg.start();   // back to the backup: its sequences go back
//
// Thread safety: thread-compatible.
#pragma once

#include <memory>
#include <string>

#include "real/server.hpp"

namespace idbench::real {

class PostgresServer final : public Server {
 public:
  // Throws ServerMissing (exit 4) when PostgreSQL is not installed, Error when it fails.
  explicit PostgresServer(PostgresSettings settings);
  ~PostgresServer() override;
  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;

  ServerKind kind() const override { return ServerKind::postgres; }
  const std::string& socket() const override;
  // "PostgreSQL 15.18, synchronous_commit=on, fsync=on, full_page_writes=on, wal_level=replica"
  std::string describe() override;
  std::string query(const std::string& sql) override;
  double clock_unix_s() override;  // extract(epoch FROM clock_timestamp())
  std::string log_tail(std::size_t lines = 15) const override;
  bool running() const override;
  int pid() const override;  // the postmaster's, from postmaster.pid
  void start() override;
  void stop() override;
  void kill9() override;
  std::string snapshot() override;
  void restore(const std::string& snapshot_path) override;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace idbench::real
