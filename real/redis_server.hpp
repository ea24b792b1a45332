// redis_server.hpp — a real redis-server started by idbench for a real system: a private
// directory, a unix socket there and no TCP port (port 0), in the foreground (no daemonize),
// with the persistence a figure depends on (the append-only file fsynced always or every
// second, or RDB snapshots only), and the controls the faults need.
//
//   RedisSettings s;  s.persistence = RedisPersistence::aof_everysec;
//   RedisServer r(s);                 // answering PING
//   r.query("INCR ids");              // through redis-cli, as set-up and probes do
//   r.kill9(); r.start();             // what it reloads from its files decides what repeats
//
// Thread safety: thread-compatible.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "real/server.hpp"

namespace idbench::real {

class RedisServer final : public Server {
 public:
  // Throws ServerMissing (exit 4) when redis-server or redis-cli is not installed.
  explicit RedisServer(RedisSettings settings);
  ~RedisServer() override;
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;

  ServerKind kind() const override { return ServerKind::redis; }
  const std::string& socket() const override;
  // "Redis 7.0.15, appendonly=yes, appendfsync=always, save=''"
  std::string describe() override;
  // One command, its words split on spaces, through redis-cli --raw; its reply's text.
  std::string query(const std::string& command) override;
  double clock_unix_s() override;  // TIME
  std::string log_tail(std::size_t lines = 15) const override;
  bool running() const override;
  int pid() const override;  // from its pid file
  void start() override;
  void stop() override;
  void kill9() override;
  std::string snapshot() override;
  void restore(const std::string& snapshot_path) override;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// One field of a Redis server's INFO section `section` ("persistence"), as text, through its
// query(): info_field(redis, "persistence", "aof_buffer_length") → "522422"; empty when the
// section has no such field.
std::string redis_info_field(Server& redis, std::string_view section, std::string_view key);

}  // namespace idbench::real
