// client.cpp — each scheme's SQL, and the retry, reconnect and failover loop around it.
#include "adapters/mariadb/client.hpp"

#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <utility>

namespace idbench::mariadb_adapter {

using line::now_ns;

namespace {

constexpr std::int64_t kMs = 1'000'000;
constexpr std::int64_t kRetryDownNs = 200 * kMs;  // a down server is tried again after this
constexpr int kMaxLockRetries = 10'000;           // consecutive, for one ID

// Every scheme's connection: its own database (made if missing), short lock waits.
std::vector<std::string> in_database(const std::string& db, std::vector<std::string> more) {
  std::vector<std::string> setup = {"SET SESSION innodb_lock_wait_timeout = 2",
                                    "CREATE DATABASE IF NOT EXISTS " + db, "USE " + db};
  setup.insert(setup.end(), more.begin(), more.end());
  return setup;
}

Scheme ticket_pair(const std::string& engine) {
  // Flickr's table and statements ("Ticket Servers: Distributed Unique Primary Keys on the
  // Cheap", 2010), the two statements in one round trip.
  return {"ticket-pair --engine " + engine,
          in_database("idbench_ticket_pair_" + engine,
                      {"CREATE TABLE IF NOT EXISTS Tickets64 (id bigint(20) unsigned NOT NULL "
                       "auto_increment, stub char(1) NOT NULL default '', PRIMARY KEY (id), "
                       "UNIQUE KEY stub (stub)) ENGINE=" +
                       engine}),
          "REPLACE INTO Tickets64 (stub) VALUES ('a'); SELECT LAST_INSERT_ID()", true};
}

Scheme ticket_update(const std::string& engine) {
  return {"ticket-update --engine " + engine,
          in_database("idbench_ticket_update_" + engine,
                      {"CREATE TABLE IF NOT EXISTS tickets (stub char(1) NOT NULL PRIMARY KEY, "
                       "id bigint unsigned NOT NULL) ENGINE=" +
                           engine,
                       "INSERT IGNORE INTO tickets (stub, id) VALUES ('a', 0)"}),
          "UPDATE tickets SET id = LAST_INSERT_ID(id + 1); SELECT LAST_INSERT_ID()", false};
}

std::string engine_option(const std::vector<std::string>& args, const std::string& fallback) {
  if (args.size() == 1) return fallback;
  if (args.size() == 3 && args[1] == "--engine" && (args[2] == "myisam" || args[2] == "innodb")) {
    return args[2];
  }
  throw UsageError("bad options for " + args[0] + " (" + kUsage + ")");
}

}  // namespace

const char* const kUsage =
    "usage: idbench-mariadb-adapter auto-increment | sequence | uuid | uuid-short | "
    "ticket-pair [--engine myisam|innodb] | ticket-update [--engine myisam|innodb] | null";

Scheme parse_scheme(const std::vector<std::string>& args) {
  if (args.empty()) throw UsageError(std::string("no scheme given (") + kUsage + ")");
  const std::string& name = args[0];
  if (name == "ticket-pair") return ticket_pair(engine_option(args, "myisam"));
  if (name == "ticket-update") return ticket_update(engine_option(args, "innodb"));
  if (args.size() != 1) throw UsageError("bad options for " + name + " (" + kUsage + ")");
  if (name == "auto-increment") {
    return {name,
            in_database("idbench_auto_increment",
                        {"CREATE TABLE IF NOT EXISTS ids (id bigint unsigned NOT NULL "
                         "AUTO_INCREMENT PRIMARY KEY) ENGINE=InnoDB"}),
            "INSERT INTO ids () VALUES ()"};
  }
  if (name == "sequence") {
    return {name, in_database("idbench_sequence", {"CREATE SEQUENCE IF NOT EXISTS ids"}),
            "SELECT NEXTVAL(ids)"};
  }
  if (name == "uuid") return {name, {}, "SELECT UUID()"};
  if (name == "uuid-short") return {name, {}, "SELECT UUID_SHORT()"};
  throw UsageError("unknown scheme '" + name + "' (" + kUsage + ")");
}

Client::Client(Scheme scheme, const std::vector<std::string>& sockets)
    : scheme_(std::move(scheme)) {
  if (sockets.empty()) throw UsageError("no MariaDB socket given");
  for (const auto& s : sockets) servers_.push_back({std::make_unique<Connection>(s), 0});
  const std::int64_t deadline = now_ns() + wait_ns_;
  for (;;) {
    bool any = false;
    for (auto& s : servers_) any = ensure_connected(s) || any;
    if (any) return;
    if (now_ns() >= deadline) break;
    ::usleep(50'000);
  }
  throw ClientError(scheme_.name + ": no server answers: " + last_down_.message);
}

bool Client::ensure_connected(Server& s) {
  if (s.conn->connected()) return true;
  if (now_ns() < s.retry_at_ns) return false;
  bool ok = s.conn->connect();
  for (std::size_t i = 0; ok && i < scheme_.setup.size(); ++i) {
    ok = s.conn->value(scheme_.setup[i]).has_value();
  }
  if (ok) return true;
  if (s.conn->error().kind != SqlError::Kind::connection) fatal(*s.conn);
  last_down_ = s.conn->error();
  s.conn->close();
  s.retry_at_ns = now_ns() + kRetryDownNs;
  return false;
}

std::optional<std::string> Client::run_on(Server& s) {
  for (int attempt = 0;; ++attempt) {
    if (auto v = s.conn->value(scheme_.per_id)) return v;
    const SqlError& e = s.conn->error();
    switch (e.kind) {
      case SqlError::Kind::deadlock:
        ++counts_.deadlocks;
        [[fallthrough]];
      case SqlError::Kind::lock_timeout:
        ++counts_.retries;
        if (attempt >= kMaxLockRetries) fatal(*s.conn);
        continue;
      case SqlError::Kind::connection:
        last_down_ = e;
        s.retry_at_ns = 0;  // reconnect at once: it may have been only this connection
        return std::nullopt;
      default:
        fatal(*s.conn);
    }
  }
}

std::string Client::next() {
  const std::size_t n = servers_.size();
  const std::int64_t deadline = now_ns() + wait_ns_;
  for (;;) {
    for (std::size_t k = 0; k < n; ++k) {
      Server& s = servers_[(turn_ + k) % n];
      if (!ensure_connected(s)) continue;
      if (auto v = run_on(s)) {
        if (k > 0) ++counts_.failovers;
        if (scheme_.alternate) turn_ = (turn_ + 1) % n;
        return *v;
      }
      ++counts_.retries;  // the statement was sent and the server lost: it goes again
    }
    if (now_ns() >= deadline) break;
    ::usleep(20'000);
  }
  throw ClientError(scheme_.name + ": every server is down: " + last_down_.message);
}

void Client::fatal(const Connection& c) const {
  throw ClientError(scheme_.name + ": " + c.socket() + ": " + c.error().message);
}

}  // namespace idbench::mariadb_adapter
