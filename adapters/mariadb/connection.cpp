// connection.cpp — the C connector calls behind Connection, and how a failure is classified.
#include "adapters/mariadb/connection.hpp"

#include <errmsg.h>
#include <mysql.h>
#include <mysqld_error.h>

#include <mutex>
#include <string>
#include <utility>

namespace idbench::mariadb_adapter {

namespace {

constexpr unsigned kTimeoutS = 5;

SqlError::Kind kind_of(unsigned code) {
  switch (code) {
    case ER_LOCK_DEADLOCK:
      return SqlError::Kind::deadlock;
    case ER_LOCK_WAIT_TIMEOUT:
      return SqlError::Kind::lock_timeout;
    case CR_CONNECTION_ERROR:
    case CR_CONN_HOST_ERROR:
    case CR_SERVER_GONE_ERROR:
    case CR_SERVER_LOST:
    case CR_SERVER_LOST_EXTENDED:
    case ER_CONNECTION_KILLED:
    case ER_SERVER_SHUTDOWN:
      return SqlError::Kind::connection;
    default:
      return SqlError::Kind::fatal;
  }
}

}  // namespace

Connection::Connection(std::string socket) : socket_(std::move(socket)) {}

Connection::~Connection() { close(); }

void Connection::close() {
  if (mysql_) mysql_close(mysql_);
  mysql_ = nullptr;
}

void Connection::fail() {
  error_.code = mysql_errno(mysql_);
  error_.message = "ERROR " + std::to_string(error_.code) + ": " + mysql_error(mysql_);
  error_.kind = kind_of(error_.code);
  if (error_.kind == SqlError::Kind::connection) close();
}

bool Connection::connect() {
  close();
  // The connector's global state, once, before any thread's first connection (mysql_init()
  // would set it up unguarded; `idbench real --direct` connects from several threads).
  static std::once_flag library;
  std::call_once(library, [] { mysql_library_init(0, nullptr, nullptr); });
  mysql_ = mysql_init(nullptr);
  if (!mysql_) {
    error_ = {SqlError::Kind::fatal, 0, "mysql_init: out of memory"};
    return false;
  }
  const unsigned timeout = kTimeoutS;
  mysql_optionsv(mysql_, MYSQL_OPT_CONNECT_TIMEOUT, &timeout);
  mysql_optionsv(mysql_, MYSQL_OPT_READ_TIMEOUT, &timeout);
  mysql_optionsv(mysql_, MYSQL_OPT_WRITE_TIMEOUT, &timeout);
  if (!mysql_real_connect(mysql_, nullptr, "root", nullptr, nullptr, 0, socket_.c_str(),
                          CLIENT_MULTI_STATEMENTS)) {
    fail();
    if (error_.kind == SqlError::Kind::fatal) error_.kind = SqlError::Kind::connection;
    close();
    return false;
  }
  return true;
}

std::optional<std::string> Connection::value(const std::string& sql) {
  if (mysql_real_query(mysql_, sql.data(), sql.size()) != 0) {
    fail();
    return std::nullopt;
  }
  std::optional<std::string> result;
  for (;;) {
    if (MYSQL_RES* res = mysql_store_result(mysql_)) {
      MYSQL_ROW row = mysql_fetch_row(res);
      if (row && row[0]) result = row[0];
      mysql_free_result(res);
    } else if (mysql_field_count(mysql_) == 0) {
      if (!result) result = std::to_string(mysql_insert_id(mysql_));
    } else {
      fail();
      return std::nullopt;
    }
    const int next = mysql_next_result(mysql_);
    if (next > 0) {
      fail();
      return std::nullopt;
    }
    if (next < 0) break;
  }
  return result;
}

}  // namespace idbench::mariadb_adapter
