// main.cpp — idbench-postgres-adapter: a PostgreSQL ID scheme (schemes.hpp) behind idbench's
// exec line protocol (docs/exec-protocol.md), over libpq.
//
//   IDBENCH_POSTGRES_HOST=/tmp/idbench-pg-1-x idbench-postgres-adapter sequence --cache 50
//   stdin "1000\n"  ->  1000 IDs on stdout, one a line, flushed; EOF -> exit 0
//
// Every request is one statement, one round trip, whatever its N. The connection is a unix
// socket in $IDBENCH_POSTGRES_HOST, user idbench, database postgres; several comma-separated
// directories (a primary and its standby) connect to the one that takes writes. A lost connection
// (a killed server, crash recovery) is reconnected and the statement sent again for up to
// $IDBENCH_POSTGRES_WAIT_MS (default 5000): a value the lost statement took is a gap, never a
// repeat. At EOF: one line on stderr, `idbench-postgres-adapter: retries=<n> reconnects=<n>`.
// $IDBENCH_SYSTEM_TIMES: the ns each request's statement took (line_server.hpp).
// Exit 2: bad usage or a malformed request. Exit 1: an error it cannot get past (one line).
#include <libpq-fe.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "adapters/line/line_server.hpp"
#include "adapters/postgres/schemes.hpp"

namespace {

using idbench::postgres_adapter::Scheme;

class Failure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Client {
 public:
  Client(Scheme scheme, std::string host) : scheme_(std::move(scheme)), host_(std::move(host)) {
    connect_until(idbench::line::now_ns() + wait_ns_);
  }
  ~Client() { drop(); }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // The N IDs of one statement, one a line, appended to `out`.
  void fill(unsigned long n, std::string& out) {
    const std::string sql = scheme_.statement(n);
    const std::int64_t deadline = idbench::line::now_ns() + wait_ns_;
    for (;;) {
      PGresult* r = PQexec(conn_, sql.c_str());
      if (PQresultStatus(r) == PGRES_TUPLES_OK && static_cast<unsigned long>(PQntuples(r)) == n) {
        for (int i = 0; i < PQntuples(r); ++i) out.append(PQgetvalue(r, i, 0)).push_back('\n');
        PQclear(r);
        return;
      }
      const std::string why = PQresultErrorMessage(r);
      PQclear(r);
      if (PQstatus(conn_) == CONNECTION_OK) throw Failure(scheme_.name + ": " + one_line(why));
      ++retries_;
      connect_until(deadline);
    }
  }
  unsigned long retries() const { return retries_; }
  unsigned long reconnects() const { return reconnects_; }

 private:
  static std::string one_line(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    for (char& c : s) c = c == '\n' ? ' ' : c;
    return s;
  }
  void drop() {
    if (conn_ != nullptr) PQfinish(conn_);
    conn_ = nullptr;
  }
  // Connects and runs the set-up; again every 20 ms until `deadline`, then Failure.
  void connect_until(std::int64_t deadline) {
    // Several hosts (a primary, then its standby): the one that takes writes.
    const std::string info =
        "host=" + host_ + " user=idbench dbname=postgres target_session_attrs=read-write";
    for (bool first = conn_ == nullptr;; first = false) {
      drop();
      conn_ = PQconnectdb(info.c_str());
      // The set-up's "already exists, skipping" notices are no error: not on stderr.
      PQsetNoticeProcessor(
          conn_, [](void*, const char*) {}, nullptr);
      std::string why = PQerrorMessage(conn_);
      if (PQstatus(conn_) == CONNECTION_OK) {
        why = set_up();
        if (why.empty()) {
          reconnects_ += first ? 0 : 1;
          return;
        }
      }
      if (idbench::line::now_ns() >= deadline) {
        throw Failure(scheme_.name + " on " + host_ + ": " + one_line(why));
      }
      ::usleep(20'000);
    }
  }
  // The scheme's set-up in one transaction under an advisory lock; the error, or "".
  std::string set_up() {
    std::string sql = "BEGIN; SELECT pg_advisory_xact_lock(4242);";
    for (const std::string& s : scheme_.setup) sql += s + ";";
    sql += "COMMIT";
    PGresult* r = PQexec(conn_, sql.c_str());
    const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    std::string why = ok ? "" : PQresultErrorMessage(r);
    PQclear(r);
    if (!ok && why.empty()) why = "set-up failed";
    return why;
  }

  Scheme scheme_;
  std::string host_;
  // How long the server may stay unreachable ($IDBENCH_POSTGRES_WAIT_MS).
  const std::int64_t wait_ns_ = idbench::line::wait_ns("IDBENCH_POSTGRES_WAIT_MS");
  PGconn* conn_ = nullptr;
  unsigned long retries_ = 0;
  unsigned long reconnects_ = 0;
};

void run(const std::vector<std::string>& args) {
  Scheme scheme = idbench::postgres_adapter::parse_scheme(args);
  const char* host = std::getenv("IDBENCH_POSTGRES_HOST");
  if (!host || !*host) {
    throw idbench::line::UsageError("IDBENCH_POSTGRES_HOST is not set (the socket's directory)");
  }
  Client client(std::move(scheme), host);
  idbench::line::serve([&client](unsigned long n, std::string& out) { client.fill(n, out); });
  std::fprintf(stderr, "idbench-postgres-adapter: retries=%lu reconnects=%lu\n", client.retries(),
               client.reconnects());
}

}  // namespace

int main(int argc, char** argv) {
  return idbench::line::adapter_main("idbench-postgres-adapter", argc, argv, run);
}
