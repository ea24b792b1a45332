// client.hpp — the ID schemes on MariaDB and the client that serves them: one statement (one
// round trip) per ID, deadlocks and lock wait timeouts retried, a lost server reconnected or
// (with two servers) failed over to the other.
//
//   Scheme s = parse_scheme({"ticket-pair", "--engine", "innodb"});   // throws UsageError
//   Client c(s, {"/tmp/.../a.sock", "/tmp/.../b.sock"});              // schema made on each
//   std::string id = c.next();                                         // throws ClientError
//
// Thread safety: thread-compatible.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "adapters/line/line_server.hpp"
#include "adapters/mariadb/connection.hpp"

namespace idbench::mariadb_adapter {

// A bad scheme name or option: exit 2, as every adapter's bad usage (line_server.hpp).
using UsageError = line::UsageError;
// A MariaDB error the client cannot get past: exit 1.
class ClientError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Scheme {
  std::string name;                // "ticket-pair --engine myisam"
  std::vector<std::string> setup;  // idempotent; run on every (re)connection
  std::string per_id;              // the statement(s) that hand out one ID
  bool alternate = false;          // ticket-pair: one server after the other
};

// The usage line (for messages).
extern const char* const kUsage;
// argv after the program name. Throws UsageError.
Scheme parse_scheme(const std::vector<std::string>& args);

struct Counts {
  std::uint64_t retries = 0;    // statements sent again: deadlock, lock wait timeout, lost server
  std::uint64_t deadlocks = 0;  // of which ER_LOCK_DEADLOCK
  std::uint64_t failovers = 0;  // IDs served by another server than the one whose turn it was
};

class Client {
 public:
  // Connects to every socket and runs the scheme's setup on it. A server that is down is
  // tried again later; throws ClientError when none answers within the reconnect window.
  Client(Scheme scheme, const std::vector<std::string>& sockets);
  // One ID (its text). Throws ClientError.
  std::string next();
  const Counts& counts() const { return counts_; }
  const Scheme& scheme() const { return scheme_; }

 private:
  struct Server {
    std::unique_ptr<Connection> conn;
    std::int64_t retry_at_ns = 0;  // a down server is not tried again before this
  };
  bool ensure_connected(Server& s);
  // Runs per_id on s, retrying deadlocks and lock waits; nullopt when the server is down.
  std::optional<std::string> run_on(Server& s);
  [[noreturn]] void fatal(const Connection& c) const;

  Scheme scheme_;
  std::vector<Server> servers_;
  std::size_t turn_ = 0;
  Counts counts_;
  SqlError last_down_;  // why the last server went down (for the message when all are)
  // How long every server may be down before the client gives up ($IDBENCH_MARIADB_WAIT_MS).
  const std::int64_t wait_ns_ = line::wait_ns("IDBENCH_MARIADB_WAIT_MS");
};

}  // namespace idbench::mariadb_adapter
