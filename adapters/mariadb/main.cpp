// main.cpp — idbench-mariadb-adapter: a MariaDB ID scheme behind idbench's exec line protocol
// (external/program.hpp; docs/exec-protocol.md).
//
//   IDBENCH_MARIADB_SOCKETS=/tmp/a.sock,/tmp/b.sock idbench-mariadb-adapter ticket-pair
//   stdin "1000\n"  ->  1000 IDs on stdout, one a line, flushed; EOF -> exit 0
//
// Each ID is one statement, one round trip: that is what these schemes cost a client.
// At EOF it prints one line on stderr, what the harness counts as unavailability:
//   idbench-mariadb-adapter: retries=<n> deadlocks=<n> failovers=<n>
// With $IDBENCH_SYSTEM_TIMES set (a file path), it also writes there at EOF one line per
// answered request: the ns its statements took, timed on the monotonic clock around them
// (the server's own cost, without the pipe hop to the harness; docs/exec-protocol.md).
// `idbench-mariadb-adapter null` answers a counter without any server: the harness's hop
// alone, through the same process and the same I/O.
// Exit 2: bad usage or a malformed request (one line on stderr). Exit 1: a MariaDB error it
// cannot get past (one line naming the scheme, the socket and the error).
// $IDBENCH_MARIADB_WAIT_MS (default 5000): how long every server may be down before exit 1.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "adapters/line/line_server.hpp"
#include "adapters/mariadb/client.hpp"
#include "plumbing/comma_list.hpp"

namespace {

using idbench::mariadb_adapter::Client;
using idbench::mariadb_adapter::UsageError;

std::vector<std::string> sockets_from_env() {
  const char* env = std::getenv("IDBENCH_MARIADB_SOCKETS");
  if (!env || !*env)
    throw UsageError("IDBENCH_MARIADB_SOCKETS is not set (comma-separated sockets)");
  std::vector<std::string> out;
  try {
    out = idbench::plumbing::split_commas(env);
  } catch (const std::invalid_argument& e) {  // a socket listed twice: the caller's mistake
    throw UsageError(std::string("IDBENCH_MARIADB_SOCKETS: ") + e.what());
  }
  if (std::find(out.begin(), out.end(), "") != out.end()) {
    throw UsageError(std::string("IDBENCH_MARIADB_SOCKETS has an empty entry: ") + env);
  }
  return out;
}

// The scheme named by `args`, served until EOF; the null scheme needs no server.
void run(const std::vector<std::string>& args) {
  if (args == std::vector<std::string>{"null"}) {
    std::uint64_t counter = 0;
    idbench::line::serve(
        [&counter](unsigned long n, std::string& out) {
          for (unsigned long i = 0; i < n; ++i) out += std::to_string(++counter) + '\n';
        },
        false);
    return;
  }
  auto scheme = idbench::mariadb_adapter::parse_scheme(args);
  Client client(std::move(scheme), sockets_from_env());
  idbench::line::serve([&client](unsigned long n, std::string& out) {
    for (unsigned long i = 0; i < n; ++i) {
      out += client.next();
      out += '\n';
    }
  });
  const auto& c = client.counts();
  std::fprintf(stderr, "idbench-mariadb-adapter: retries=%llu deadlocks=%llu failovers=%llu\n",
               static_cast<unsigned long long>(c.retries),
               static_cast<unsigned long long>(c.deadlocks),
               static_cast<unsigned long long>(c.failovers));
}

}  // namespace

int main(int argc, char** argv) {
  // SIGPIPE ignored: a server killed under a statement is an error to handle (failover).
  return idbench::line::adapter_main("idbench-mariadb-adapter", argc, argv, run);
}
