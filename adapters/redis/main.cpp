// main.cpp — idbench-redis-adapter: Redis's INCR as a ticket server, behind idbench's exec line
// protocol (docs/exec-protocol.md), over hiredis.
//
//   IDBENCH_REDIS_SOCKET=/tmp/idbench-redis-1-x/redis.sock idbench-redis-adapter incr
//   stdin "1000\n"  ->  1000 IDs on stdout, one a line, flushed; EOF -> exit 0
//
// One command per request, one round trip: `INCR ids` for one ID, `INCRBY ids N` for N (the
// IDs are the N values up to its reply). A lost connection (a killed server) is reconnected
// and the command sent again for up to $IDBENCH_REDIS_WAIT_MS (default 5000): the values a lost
// command took are a gap. $IDBENCH_REDIS_SOCKET may list several sockets (comma-separated: a
// master, then its replica): a lost one, or one that answers READONLY (a replica not yet
// promoted) or LOADING, hands over to the next. At EOF: one line on stderr,
// `idbench-redis-adapter: retries=<n> reconnects=<n>`. $IDBENCH_SYSTEM_TIMES: the ns each
// request's command took (line_server.hpp).
// Exit 2: bad usage or a malformed request. Exit 1: an error it cannot get past (one line).
#include <hiredis/hiredis.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "adapters/line/line_server.hpp"

namespace {

class Failure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Client {
 public:
  explicit Client(std::vector<std::string> sockets) : sockets_(std::move(sockets)) {
    connect_until(idbench::line::now_ns() + wait_ns_, true);
  }
  ~Client() { drop(); }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // The N IDs of one command, one a line, appended to `out`.
  void fill(unsigned long n, std::string& out) {
    const std::int64_t deadline = idbench::line::now_ns() + wait_ns_;
    for (;;) {
      auto* r = static_cast<redisReply*>(n == 1 ? redisCommand(ctx_, "INCR ids")
                                                : redisCommand(ctx_, "INCRBY ids %lu", n));
      if (r != nullptr && r->type == REDIS_REPLY_INTEGER) {
        const long long last = r->integer;
        freeReplyObject(r);
        for (long long v = last - static_cast<long long>(n) + 1; v <= last; ++v) {
          out.append(std::to_string(v)).push_back('\n');
        }
        return;
      }
      if (r != nullptr) {
        const std::string why = r->type == REDIS_REPLY_ERROR ? r->str : "an unexpected reply";
        freeReplyObject(r);
        // A server still loading its files answers LOADING, a replica READONLY: wait, or hand
        // over to the next socket, as for a lost one.
        if (why.rfind("LOADING", 0) != 0 && why.rfind("READONLY", 0) != 0) {
          throw Failure("INCR: " + why);
        }
      }
      ++retries_;
      turn_ = (turn_ + 1) % sockets_.size();
      connect_until(deadline, false);
    }
  }
  unsigned long retries() const { return retries_; }
  unsigned long reconnects() const { return reconnects_; }

 private:
  void drop() {
    if (ctx_ != nullptr) redisFree(ctx_);
    ctx_ = nullptr;
  }
  void connect_until(std::int64_t deadline, bool first) {
    for (;;) {
      drop();
      const std::string& socket = sockets_[turn_];
      ctx_ = redisConnectUnix(socket.c_str());
      if (ctx_ != nullptr && ctx_->err == 0) {
        reconnects_ += first ? 0 : 1;
        return;
      }
      const std::string why = ctx_ != nullptr ? ctx_->errstr : "cannot allocate a context";
      if (idbench::line::now_ns() >= deadline) throw Failure("redis at " + socket + ": " + why);
      turn_ = (turn_ + 1) % sockets_.size();
      ::usleep(20'000);
    }
  }

  std::vector<std::string> sockets_;
  // How long the server may stay unreachable ($IDBENCH_REDIS_WAIT_MS).
  const std::int64_t wait_ns_ = idbench::line::wait_ns("IDBENCH_REDIS_WAIT_MS");
  std::size_t turn_ = 0;  // the socket in use
  redisContext* ctx_ = nullptr;
  unsigned long retries_ = 0;
  unsigned long reconnects_ = 0;
};

void run(const std::vector<std::string>& args) {
  if (args != std::vector<std::string>{"incr"}) {
    throw idbench::line::UsageError("usage: idbench-redis-adapter incr");
  }
  const char* env = std::getenv("IDBENCH_REDIS_SOCKET");
  if (!env || !*env) throw idbench::line::UsageError("IDBENCH_REDIS_SOCKET is not set");
  std::vector<std::string> sockets;
  std::istringstream list(env);
  for (std::string s; std::getline(list, s, ',');) {
    if (s.empty()) throw idbench::line::UsageError("IDBENCH_REDIS_SOCKET has an empty entry");
    sockets.push_back(s);
  }
  Client client(std::move(sockets));
  idbench::line::serve([&client](unsigned long n, std::string& out) { client.fill(n, out); });
  std::fprintf(stderr, "idbench-redis-adapter: retries=%lu reconnects=%lu\n", client.retries(),
               client.reconnects());
}

}  // namespace

int main(int argc, char** argv) {
  return idbench::line::adapter_main("idbench-redis-adapter", argc, argv, run);
}
