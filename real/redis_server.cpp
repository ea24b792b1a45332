// redis_server.cpp — a project-started redis-server for the real systems: persistence to
// flags, crash, restart, cold copies of its data directory, and the settings read back.
#include "real/redis_server.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <sstream>

#include "plumbing/db_server.hpp"
#include "real/server_files.hpp"

namespace idbench::real {

namespace {

namespace fs = std::filesystem;

constexpr const char* kRedisMissing =
    "Redis is not installed: the Redis systems need the Debian package redis-server "
    "(apt-get install --no-install-recommends redis-server; ./run.sh installs it)";

std::vector<std::string> persistence_flags(RedisPersistence p) {
  switch (p) {
    case RedisPersistence::aof_always:
      return {"--appendonly", "yes", "--appendfsync", "always", "--save", ""};
    case RedisPersistence::aof_everysec:
      return {"--appendonly", "yes", "--appendfsync", "everysec", "--save", ""};
    case RedisPersistence::rdb:
      break;
  }
  return {"--appendonly", "no", "--save", kRedisSavePoints};
}

}  // namespace

struct RedisServer::State {
  RedisSettings settings;
  std::string server, cli;
  plumbing::DbServer db{"idbench-redis", std::nullopt};
  std::string socket;
  int snapshots = 0;
};

RedisServer::RedisServer(RedisSettings settings) {
  const std::string server = plumbing::find_program("redis-server");
  const std::string cli = plumbing::find_program("redis-cli");
  if (server.empty() || cli.empty()) throw ServerMissing(kRedisMissing);  // before any directory
  state_ = std::make_unique<State>();
  State& st = *state_;
  st.settings = std::move(settings);
  st.server = server;
  st.cli = cli;
  st.socket = st.db.dir() + "/redis.sock";
  fs::create_directory(st.db.dir() + "/data");
  std::vector<std::string> argv = {server,
                                   "--port",
                                   "0",
                                   "--unixsocket",
                                   st.socket,
                                   "--unixsocketperm",
                                   "700",
                                   "--daemonize",
                                   "no",
                                   "--pidfile",
                                   st.db.dir() + "/redis.pid",
                                   "--dir",
                                   st.db.dir() + "/data",
                                   "--logfile",
                                   "",
                                   "--protected-mode",
                                   "no"};
  const auto flags = persistence_flags(st.settings.persistence);
  argv.insert(argv.end(), flags.begin(), flags.end());
  if (st.settings.port != 0) {
    // A master: its replica's first sync starts at once, not after Redis 7's 5 s wait.
    argv.insert(argv.end(), {"--port", std::to_string(st.settings.port), "--bind", "127.0.0.1",
                             "--repl-diskless-sync-delay", "0"});
  }
  if (st.settings.replica_of_port != 0) {
    argv.insert(argv.end(),
                {"--replicaof", "127.0.0.1", std::to_string(st.settings.replica_of_port)});
  }
  st.db.start(argv, {cli, "-s", st.socket, "PING"}, "redis-server", st.settings.env);
}

RedisServer::~RedisServer() = default;

const std::string& RedisServer::socket() const { return state_->socket; }

std::string redis_info_field(Server& redis, std::string_view section, std::string_view key) {
  std::istringstream info(redis.query(fmt::format("INFO {}", section)));
  const std::string prefix = fmt::format("{}:", key);
  for (std::string line; std::getline(info, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.starts_with(prefix)) return line.substr(prefix.size());
  }
  return "";
}

std::string RedisServer::describe() {
  const std::string version = one_line(redis_info_field(*this, "server", "redis_version"));
  const auto get = [&](const std::string& key) {
    std::istringstream r(query("CONFIG GET " + key));
    std::string name, value;
    std::getline(r, name);
    std::getline(r, value);
    return value;
  };
  return fmt::format("Redis {}, appendonly={}, appendfsync={}, save='{}'", version,
                     get("appendonly"), get("appendfsync"), get("save"));
}

std::string RedisServer::query(const std::string& command) {
  std::vector<std::string> argv = {state_->cli, "-s", state_->socket, "--raw"};
  std::istringstream words(command);
  for (std::string w; words >> w;) argv.push_back(w);
  plumbing::CommandOptions options;
  options.timeout_ms = 30'000;
  auto r = plumbing::run_command(argv, options);
  if (r.exit_code != 0 || r.out.starts_with("ERR")) {
    throw Error(fmt::format("redis-cli {}: {}{}", command, one_line(r.out), one_line(r.err)));
  }
  while (!r.out.empty() && (r.out.back() == '\n' || r.out.back() == '\r')) r.out.pop_back();
  return r.out;
}

double RedisServer::clock_unix_s() {
  std::istringstream r(query("TIME"));
  long long s = 0, us = 0;
  if (!(r >> s >> us)) throw Error("redis-server's TIME gave no time");
  return static_cast<double>(s) + static_cast<double>(us) / 1e6;
}

std::string RedisServer::log_tail(std::size_t lines) const {
  return file_tail_lines(state_->db.dir() + "/server.log", lines);
}

bool RedisServer::running() const { return state_->db.running(); }

int RedisServer::pid() const {
  return pid_from_file(state_->db.dir() + "/redis.pid", running(), "redis-server");
}

void RedisServer::start() {
  if (!running()) state_->db.restart();
}

void RedisServer::stop() { state_->db.stop(); }

void RedisServer::kill9() { state_->db.kill9(); }

std::string RedisServer::snapshot() { return cold_snapshot(state_->db, state_->snapshots); }

void RedisServer::restore(const std::string& snapshot_path) {
  restore_stopped(state_->db, "RedisServer", snapshot_path);
}

}  // namespace idbench::real
