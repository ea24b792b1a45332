// server.cpp — the kinds of project-started servers: their names, their durability as a label
// and as JSON, the files they share (server_files.hpp), and starting one by kind.
#include "real/server.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "plumbing/child_process.hpp"
#include "plumbing/file_tree.hpp"
#include "real/mariadb_server.hpp"
#include "real/postgres_server.hpp"
#include "real/redis_server.hpp"
#include "real/server_files.hpp"

namespace idbench::real {

namespace fs = std::filesystem;

std::string_view name_of(ServerKind kind) {
  switch (kind) {
    case ServerKind::mariadb:
      return "mariadb";
    case ServerKind::postgres:
      return "postgres";
    case ServerKind::redis:
      return "redis";
    case ServerKind::none:
      break;
  }
  return "";
}

std::string_view name_of(RedisPersistence p) {
  switch (p) {
    case RedisPersistence::aof_always:
      return "always";
    case RedisPersistence::aof_everysec:
      return "everysec";
    case RedisPersistence::rdb:
      break;
  }
  return "rdb";
}

RedisPersistence parse_redis_persistence(std::string_view text) {
  for (const auto p :
       {RedisPersistence::aof_always, RedisPersistence::aof_everysec, RedisPersistence::rdb}) {
    if (name_of(p) == text) return p;
  }
  throw Error(fmt::format("unknown Redis persistence '{}': want always, everysec or rdb", text));
}

std::string durability_label(ServerKind kind, const ServerSettings& s) {
  switch (kind) {
    case ServerKind::mariadb:
      return fmt::format("flush={}{}", s.mariadb.flush_log_at_trx_commit,
                         s.mariadb.binlog ? " binlog" : "");
    case ServerKind::postgres:
      return "synchronous_commit=" + s.postgres.synchronous_commit;
    case ServerKind::redis:
      return s.redis.persistence == RedisPersistence::rdb
                 ? "rdb"
                 : fmt::format("appendfsync={}", name_of(s.redis.persistence));
    case ServerKind::none:
      break;
  }
  return "";
}

nlohmann::json durability_json(ServerKind kind, const ServerSettings& s) {
  switch (kind) {
    case ServerKind::mariadb:
      return {{"innodb_flush_log_at_trx_commit", s.mariadb.flush_log_at_trx_commit},
              {"binlog", s.mariadb.binlog}};
    case ServerKind::postgres:
      return {{"synchronous_commit", s.postgres.synchronous_commit}, {"fsync", true}};
    case ServerKind::redis:
      if (s.redis.persistence == RedisPersistence::rdb) {
        return {{"appendonly", false}, {"save", kRedisSavePoints}};
      }
      return {{"appendonly", true}, {"appendfsync", name_of(s.redis.persistence)}};
    case ServerKind::none:
      break;
  }
  return nullptr;
}

std::unique_ptr<Server> start_server(ServerKind kind, const ServerSettings& settings) {
  switch (kind) {
    case ServerKind::mariadb:
      return std::make_unique<MariadbServer>(settings.mariadb);
    case ServerKind::postgres:
      return std::make_unique<PostgresServer>(settings.postgres);
    case ServerKind::redis:
      return std::make_unique<RedisServer>(settings.redis);
    case ServerKind::none:
      break;
  }
  throw Error("start_server: a system without servers has none to start");
}

std::string file_tail_lines(const std::string& path, std::size_t lines) {
  std::string log = plumbing::read_text_file(path);
  while (!log.empty() && log.back() == '\n') log.pop_back();
  std::size_t from = log.size();
  for (std::size_t n = 0; n < lines && from != std::string::npos && from > 0; ++n) {
    from = log.rfind('\n', from - 1);
  }
  if (from == std::string::npos) return log;
  return from == log.size() ? "" : log.substr(from + 1);
}

int pid_from_file(const std::string& path, bool running, const std::string& what) {
  const std::string text = plumbing::read_text_file(path);
  try {
    if (running) return std::stoi(text);
  } catch (const std::exception&) {
  }
  throw Error(fmt::format("{}'s pid file {} holds no pid ('{}')", what, path, one_line(text)));
}

void replace_with_copy(const std::string& data, const std::string& snapshot) {
  if (!fs::is_directory(snapshot)) throw Error(fmt::format("no snapshot at {}", snapshot));
  std::error_code ec;
  fs::remove_all(data, ec);
  if (ec) throw Error(fmt::format("cannot remove {}: {}", data, ec.message()));
  plumbing::copy_tree(snapshot, data);
}

std::string cold_snapshot(plumbing::DbServer& db, int& count) {
  const bool was_running = db.running();
  db.stop();
  const std::string path = fmt::format("{}/snapshot-{}", db.dir(), ++count);
  plumbing::copy_tree(db.dir() + "/data", path);
  if (was_running) db.restart();
  return path;
}

void restore_stopped(plumbing::DbServer& db, const std::string& who, const std::string& snapshot) {
  if (db.running()) throw Error(fmt::format("{}::restore: stop the server first", who));
  replace_with_copy(db.dir() + "/data", snapshot);
}

}  // namespace idbench::real
