// connection.hpp — one MariaDB connection over a unix socket through the C connector
// (libmariadb): connect, run a statement (or a ';'-separated pair) and classify its failure.
//
//   Connection c("/tmp/idbench-mariadbd-1-x/mysqld.sock");
//   if (!c.connect()) ... c.error() ...
//   std::optional<std::string> id = c.value("SELECT UUID_SHORT()");
//
// Thread safety: thread-compatible (one connection per adapter process).
#pragma once

#include <optional>
#include <string>

struct st_mysql;

namespace idbench::mariadb_adapter {

struct SqlError {
  enum class Kind {
    none,
    deadlock,      // ER_LOCK_DEADLOCK (1213): retry the statement
    lock_timeout,  // ER_LOCK_WAIT_TIMEOUT (1205): retry the statement
    connection,    // the server is down or went away: reconnect, or fail over
    fatal,         // anything else
  };
  Kind kind = Kind::none;
  unsigned code = 0;
  std::string message;  // "ERROR 1213: Deadlock found when trying to get lock; ..."
};

class Connection {
 public:
  explicit Connection(std::string socket);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  const std::string& socket() const { return socket_; }
  bool connected() const { return mysql_ != nullptr; }
  // Connects as root over the socket (multi-statements on, 5 s timeouts); false on failure,
  // with error() set.
  bool connect();
  void close();
  // Runs `sql` (one statement, or several separated by ';', in one round trip). Returns the
  // first column of the first row of the last result set; without any result set, the
  // statement's insert id (mysql_insert_id()). nullopt on failure, with error() set (and the
  // connection closed when it is lost).
  std::optional<std::string> value(const std::string& sql);
  const SqlError& error() const { return error_; }

 private:
  void fail();  // sets error_ from the connection

  std::string socket_;
  st_mysql* mysql_ = nullptr;
  SqlError error_;
};

}  // namespace idbench::mariadb_adapter
