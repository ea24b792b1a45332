// main.cpp — idbench-mariadb-adapter: a MariaDB ID scheme behind idbench's exec line protocol
// (external/program.hpp; docs/exec-protocol.md).
//
//   IDBENCH_MARIADB_SOCKETS=/tmp/a.sock,/tmp/b.sock idbench-mariadb-adapter ticket-pair
//   stdin "1000\n"  ->  1000 IDs on stdout, one a line, flushed; EOF -> exit 0
//
// Each ID is one statement, one round trip: that is what these schemes cost a client.
// At EOF it prints one line on stderr, what the harness counts as unavailability:
//   idbench-mariadb-adapter: retries=<n> deadlocks=<n> failovers=<n>
// Exit 2: bad usage or a malformed request (one line on stderr). Exit 1: a MariaDB error it
// cannot get past (one line naming the scheme, the socket and the error).
// $IDBENCH_MARIADB_WAIT_MS (default 5000): how long every server may be down before exit 1.
#include <cstdio>
#include <signal.h>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "adapters/mariadb/client.hpp"
#include "plumbing/comma_list.hpp"

namespace {

using idbench::mariadb_adapter::Client;
using idbench::mariadb_adapter::ClientError;
using idbench::mariadb_adapter::UsageError;

constexpr unsigned long kMaxRequest = 1'000'000;  // external::kMaxRequest

std::vector<std::string> sockets_from_env() {
  const char* env = std::getenv("IDBENCH_MARIADB_SOCKETS");
  if (!env || !*env) throw UsageError("IDBENCH_MARIADB_SOCKETS is not set (comma-separated sockets)");
  std::vector<std::string> out = idbench::plumbing::split_commas(env);
  if (std::find(out.begin(), out.end(), "") != out.end()) {
    throw UsageError(std::string("IDBENCH_MARIADB_SOCKETS has an empty entry: ") + env);
  }
  return out;
}

// The count N of a request line, or UsageError.
unsigned long parse_request(const std::string& line) {
  std::string digits = line;
  if (!digits.empty() && digits.back() == '\r') digits.pop_back();
  bool ok = !digits.empty() && digits.size() <= 7;
  for (const char c : digits) ok = ok && c >= '0' && c <= '9';
  const unsigned long n = ok ? std::stoul(digits) : 0;
  if (n < 1 || n > kMaxRequest) {
    std::string shown;
    for (const char c : line.substr(0, 40)) shown += (c >= 0x20 && c < 0x7f) ? c : '?';
    throw UsageError("bad request '" + shown + "': want a count 1..1000000 and a newline");
  }
  return n;
}

void serve(Client& client) {
  std::string out;
  for (std::string line; std::getline(std::cin, line);) {
    const unsigned long n = parse_request(line);
    out.clear();
    for (unsigned long i = 0; i < n; ++i) {
      out += client.next();
      out += '\n';
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  // A server killed under a statement is an error to handle (failover), not a SIGPIPE death.
  ::signal(SIGPIPE, SIG_IGN);
  try {
    auto scheme = idbench::mariadb_adapter::parse_scheme({argv + 1, argv + argc});
    Client client(std::move(scheme), sockets_from_env());
    serve(client);
    const auto& c = client.counts();
    std::fprintf(stderr, "idbench-mariadb-adapter: retries=%llu deadlocks=%llu failovers=%llu\n",
                 static_cast<unsigned long long>(c.retries),
                 static_cast<unsigned long long>(c.deadlocks),
                 static_cast<unsigned long long>(c.failovers));
    return 0;
  } catch (const UsageError& e) {
    std::fprintf(stderr, "idbench-mariadb-adapter: %s\n", e.what());
    return 2;
  } catch (const ClientError& e) {
    std::fprintf(stderr, "idbench-mariadb-adapter: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "idbench-mariadb-adapter: %s\n", e.what());
    return 1;
  }
}
